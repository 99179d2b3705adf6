import { InvalidArgumentError } from 'commander';

export function parsePort(value: string, allowZero = true): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < (allowZero ? 0 : 1) || n > 65535) {
    throw new InvalidArgumentError(`expected a TCP port ${allowZero ? '0' : '1'}-65535, got '${value}'`);
  }
  return n;
}

export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`expected a positive whole number, got '${value}'`);
  return n;
}

export function parseNonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`expected a whole number 0 or more, got '${value}'`);
  return n;
}

export function parseSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`expected a number of seconds above 0, got '${value}'`);
  return n;
}

export function parseVantage(value: string): 'server' | 'client' {
  if (value !== 'server' && value !== 'client') throw new InvalidArgumentError(`expected server or client, got '${value}'`);
  return value;
}

export function parseList(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}

export interface GlobalOptions {
  apiHost: string;
  apiPort: number;
  apiToken?: string;
  logLevel?: string;
}
