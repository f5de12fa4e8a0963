import { stemmer } from "stemmer";

/**
 * How the memory and knowledge-base indexes read a word, at indexing and at search alike: lower-cased
 * and reduced to its English stem (Porter), so "parking", "parked" and "park" meet.
 */
export function searchTerm(term: string): string {
  return stemmer(term.toLowerCase());
}
