/**
 * What the sim knows about each entity type: display name, Java class name, whether it is a
 * living entity (health fields), and its hitbox (for selectors and the view ray).
 */
export interface EntityTypeInfo {
  name: string;
  className: string;
  living: boolean;
  maxHealth: number;
  width: number;
  height: number;
  /** `summon` refuses players and unknown types. */
  summonable: boolean;
}

function living(name: string, className: string, maxHealth: number, width: number, height: number): EntityTypeInfo {
  return { name, className, living: true, maxHealth, width, height, summonable: true };
}

function thing(name: string, className: string, width: number, height: number): EntityTypeInfo {
  return { name, className, living: false, maxHealth: 0, width, height, summonable: true };
}

const KNOWN: Record<string, EntityTypeInfo> = {
  'minecraft:player': { ...living('Player', 'ServerPlayer', 20, 0.6, 1.8), summonable: false },
  'minecraft:pig': living('Pig', 'Pig', 10, 0.9, 0.9),
  'minecraft:cow': living('Cow', 'Cow', 10, 0.9, 1.4),
  'minecraft:sheep': living('Sheep', 'Sheep', 8, 0.9, 1.3),
  'minecraft:chicken': living('Chicken', 'Chicken', 4, 0.4, 0.7),
  'minecraft:zombie': living('Zombie', 'Zombie', 20, 0.6, 1.95),
  'minecraft:skeleton': living('Skeleton', 'Skeleton', 20, 0.6, 1.99),
  'minecraft:creeper': living('Creeper', 'Creeper', 20, 0.6, 1.7),
  'minecraft:spider': living('Spider', 'Spider', 16, 1.4, 0.9),
  'minecraft:villager': living('Villager', 'Villager', 20, 0.6, 1.95),
  'minecraft:horse': living('Horse', 'Horse', 22, 1.3965, 1.6),
  'minecraft:wolf': living('Wolf', 'Wolf', 8, 0.6, 0.85),
  'minecraft:cat': living('Cat', 'Cat', 10, 0.6, 0.7),
  'minecraft:armor_stand': living('Armor Stand', 'ArmorStand', 20, 0.5, 1.975),
  'minecraft:sulfur_cube': living('Sulfur Cube', 'SulfurCube', 16, 1.0, 1.0),
  'minecraft:iron_golem': living('Iron Golem', 'IronGolem', 100, 1.4, 2.7),
  'minecraft:snow_golem': living('Snow Golem', 'SnowGolem', 4, 0.7, 1.9),
  'minecraft:rabbit': living('Rabbit', 'Rabbit', 3, 0.49, 0.5),
  'minecraft:llama': living('Llama', 'Llama', 15, 0.9, 1.87),
  'minecraft:donkey': living('Donkey', 'Donkey', 15, 1.3965, 1.5),
  'minecraft:parrot': living('Parrot', 'Parrot', 6, 0.5, 0.9),
  'minecraft:bee': living('Bee', 'Bee', 10, 0.7, 0.6),
  'minecraft:fox': living('Fox', 'Fox', 10, 0.6, 0.7),
  'minecraft:goat': living('Goat', 'Goat', 10, 0.9, 1.3),
  'minecraft:item': thing('Item', 'ItemEntity', 0.25, 0.25),
  'minecraft:arrow': thing('Arrow', 'Arrow', 0.5, 0.5),
  'minecraft:oak_boat': thing('Oak Boat', 'Boat', 1.375, 0.5625),
  'minecraft:minecart': thing('Minecart', 'Minecart', 0.98, 0.7),
  'minecraft:chest_minecart': thing('Minecart with Chest', 'MinecartChest', 0.98, 0.7),
  'minecraft:hopper_minecart': thing('Minecart with Hopper', 'MinecartHopper', 0.98, 0.7),
  'minecraft:furnace_minecart': thing('Minecart with Furnace', 'MinecartFurnace', 0.98, 0.7),
  'minecraft:tnt_minecart': thing('Minecart with TNT', 'MinecartTNT', 0.98, 0.7),
  'minecraft:item_frame': thing('Item Frame', 'ItemFrame', 0.5, 0.5),
  'minecraft:tnt': thing('Primed TNT', 'PrimedTnt', 0.98, 0.98),
  'minecraft:falling_block': thing('Falling Block', 'FallingBlockEntity', 0.98, 0.98),
  'minecraft:experience_orb': thing('Experience Orb', 'ExperienceOrb', 0.5, 0.5),
};

/** `pig` → `minecraft:pig`; ids that already carry a namespace are kept. */
export function normaliseId(id: string): string {
  return id.includes(':') ? id : `minecraft:${id}`;
}

/** `minecraft:glow_squid` → `Glow Squid`. */
export function titleCase(id: string): string {
  const path = id.slice(id.indexOf(':') + 1);
  return path
    .split(/[_/]/)
    .filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join(' ');
}

export function isKnownType(type: string): boolean {
  return normaliseId(type) in KNOWN;
}

/** Info for a known type; an unknown type (scripted by a test) gets plain non-living defaults. */
export function typeInfo(type: string): EntityTypeInfo {
  const id = normaliseId(type);
  const known = KNOWN[id];
  if (known) return known;
  return { ...thing(titleCase(id), titleCase(id).replace(/ /g, ''), 0.6, 0.6), summonable: false };
}
