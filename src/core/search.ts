/**
 * Tool search for discovery mode (dispatch notes §6 "Discovery"): a keyword engine behind a small
 * interface, so a semantic one can replace it. Pure.
 *
 * Score of a tool = the mean over the query's words of the best place each word is found: in the
 * name 1, the title 0.85, the description 0.6; a word that only shares a stem of 4+ letters with
 * one there (`volt` / `voltage`) counts 3/4 of that. So scores run from 0 (no word found) to 1
 * (every word in the name).
 */

export interface SearchEntry {
  name: string;
  title?: string;
  description: string;
}

export interface ToolHit {
  name: string;
  /** The first sentence of the description. */
  description: string;
  /** 0..1, higher is better. */
  score: number;
}

export interface SearchEngine {
  search(query: string, entries: readonly SearchEntry[], limit: number): ToolHit[];
}

const WEIGHTS = { name: 1, title: 0.85, description: 0.6 } as const;
const PARTIAL = 0.75;
const MIN_STEM = 4;

/** Words that say nothing about which tool is meant. */
const STOP_WORDS = new Set(
  'a an the to of on in at for and or is are be it its my me i we you with by from this that these those what which how do does can could please some any all want need using use via into as so'.split(
    ' ',
  ),
);

/** Lower-case words of a text, stop words dropped, crude English endings removed. */
export function keywords(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '' && !STOP_WORDS.has(word))
    .map(stem);
}

function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

function matchIn(term: string, words: ReadonlySet<string>): number {
  if (words.has(term)) return 1;
  for (const word of words) {
    const [short, long] = term.length <= word.length ? [term, word] : [word, term];
    if (short.length >= MIN_STEM && long.startsWith(short)) return PARTIAL;
  }
  return 0;
}

interface Indexed {
  entry: SearchEntry;
  name: ReadonlySet<string>;
  title: ReadonlySet<string>;
  description: ReadonlySet<string>;
}

const index = new WeakMap<SearchEntry, Indexed>();

function indexed(entry: SearchEntry): Indexed {
  let found = index.get(entry);
  if (!found) {
    found = {
      entry,
      name: new Set(keywords(entry.name)),
      title: new Set(keywords(entry.title ?? '')),
      description: new Set(keywords(entry.description)),
    };
    index.set(entry, found);
  }
  return found;
}

/** Score of one entry for the query's keywords, 0..1. */
export function scoreEntry(terms: readonly string[], entry: SearchEntry): number {
  if (terms.length === 0) return 0;
  const { name, title, description } = indexed(entry);
  let total = 0;
  for (const term of terms) {
    total += Math.max(
      WEIGHTS.name * matchIn(term, name),
      WEIGHTS.title * matchIn(term, title),
      WEIGHTS.description * matchIn(term, description),
    );
  }
  return Math.round((total / terms.length) * 1000) / 1000;
}

/** The first sentence (or line) of a description, at most 160 characters. */
export function firstSentence(description: string): string {
  const line = description.trim().split('\n')[0] ?? '';
  // "e.g." and "i.e." end no sentence.
  const end = line.search(/(?<!\b(?:e\.g|i\.e))[.!?](\s|$)/);
  const sentence = end >= 0 ? line.slice(0, end + 1) : line;
  return sentence.length > 160 ? `${sentence.slice(0, 157)}...` : sentence;
}

export const keywordSearch: SearchEngine = {
  search(query, entries, limit) {
    const terms = [...new Set(keywords(query))];
    return entries
      .map((entry) => ({ entry, score: scoreEntry(terms, entry) }))
      .filter((hit) => hit.score > 0)
      .sort((a, b) => b.score - a.score || a.entry.name.localeCompare(b.entry.name))
      .slice(0, limit)
      .map(({ entry, score }) => ({
        name: entry.name,
        description: firstSentence(entry.description),
        score,
      }));
  },
};
