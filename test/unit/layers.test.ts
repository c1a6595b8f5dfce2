import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { architectureTable, codeIn, importGraph, SRC } from '../support/architecture.js';

const FRACTIONS: Record<string, number> = { '': 0, '¼': 0.25, '½': 0.5, '¾': 0.75 };
const rankValue = (text: string): number => {
  const [, whole, fraction] = /^(\d+)([¼½¾]?)$/.exec(text) ?? [];
  if (whole === undefined) throw new Error(`"${text}" is not a layer of ARCHITECTURE.md`);
  return Number(whole) + FRACTIONS[fraction!]!;
};

/**
 * ARCHITECTURE.md's layer table, bottom to top: a row's folders and top-level files, and the layers it may import
 * ("nothing of ours", "all" below it, or a range such as "0–2").
 */
const LAYERS = architectureTable('## Layers').map(([rank = '', units = '', , mayImport = '']) => {
  const range = /^(\S+)–(\S+)$/.exec(mayImport);
  if (!range && mayImport !== 'nothing of ours' && mayImport !== 'all') {
    throw new Error(`ARCHITECTURE.md's layer ${rank} may import "${mayImport}", not a range of layers`);
  }
  return {
    rank: rankValue(rank),
    units: codeIn(units).map((unit) => unit.replace(/\/$/, '')),
    mayImport: (other: number): boolean =>
      range ? other >= rankValue(range[1]!) && other <= rankValue(range[2]!) : mayImport === 'all',
  };
});

const unitOf = (file: string): string => relative(SRC, file).split('/')[0]!;
const layerOf = (file: string) => LAYERS.find((layer) => layer.units.includes(unitOf(file)));

// Files of one top-level layer may import each other (the cycle check still applies); folders of one layer may not.
const isTopLevelFile = (file: string): boolean => unitOf(file).endsWith('.ts');

const { files, graph } = importGraph();

describe('layers', () => {
  it('every source file belongs to a row of the table, and every row names what is there, once', () => {
    expect(files.filter((f) => layerOf(f) === undefined).map((f) => relative(SRC, f))).toEqual([]);
    const units = LAYERS.flatMap((layer) => layer.units);
    expect(units.filter((unit) => !existsSync(join(SRC, unit)))).toEqual([]);
    expect(units.filter((unit, i) => units.indexOf(unit) !== i)).toEqual([]);
  });

  it('every import runs down to a layer its row may import (or within one folder), never up or sideways', () => {
    const allowed = (from: string, to: string): boolean => {
      if (unitOf(to) === unitOf(from)) return true;
      const [own, other] = [layerOf(from)!, layerOf(to)!];
      return (other.rank < own.rank && own.mayImport(other.rank)) || (other.rank === own.rank && isTopLevelFile(to));
    };
    const wrong = [...graph].flatMap(([from, targets]) =>
      targets.filter((to) => !allowed(from, to)).map((to) => `${relative(SRC, from)} → ${relative(SRC, to)}`),
    );
    expect(wrong).toEqual([]);
  });

  it('no import cycle between files', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, trail: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...trail.slice(trail.indexOf(file)), file].map((f) => relative(SRC, f)).join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const target of graph.get(file) ?? []) visit(target, [...trail, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(cycles).toEqual([]);
  });
});
