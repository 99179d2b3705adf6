// A Stryker ignorer (stryker.config.mjs): no mutants inside calls to a pino logger. What the
// kernel logs is for people reading stderr, not behaviour a test asserts; see docs/decisions.md.
const LOGGER_METHODS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'child', 'isLevelEnabled']);

/** `log`, `logger`, `this.log`, `this.opts.log`, `options.log`... */
function isLogger(node) {
  if (node.type === 'Identifier') return node.name === 'log' || node.name === 'logger';
  if (node.type === 'MemberExpression' && !node.computed && node.property.type === 'Identifier') return node.property.name === 'log' || node.property.name === 'logger';
  return false;
}

export const strykerPlugins = [
  {
    kind: 'Ignore',
    name: 'logger-calls',
    value: {
      shouldIgnore(path) {
        const node = path.node;
        if (node.type !== 'CallExpression' || node.callee.type !== 'MemberExpression' || node.callee.computed) return undefined;
        const method = node.callee.property;
        if (method.type === 'Identifier' && LOGGER_METHODS.has(method.name) && isLogger(node.callee.object)) return 'a log line, read by people, not asserted';
        return undefined;
      },
    },
  },
];
