/** One neutral section of what a person reads about a result (README and console render it). */
/** A table cell: plain text, or text that links to a file of the result folder. */
export type Cell = string | { text: string; href: string };

export interface Section {
  title: string;
  paragraphs?: string[];
  pairs?: [string, string][];
  table?: { head: string[]; rows: Cell[][] };
  items?: string[];
  /** Pictures of the result folder: the README shows them, the console names the files. */
  images?: { file: string; caption: string }[];
  notes?: string[];
}
