// Axis labels that wrap instead of being cut: an answer or concept name of 40 characters kept its
// first 24 and "...", so two answers that begin alike ("I would definitely buy this ..." and "I
// would definitely buy it ...") printed the same tick. No React here, so it is tested alone.

/**
 * A label in at most `lines` lines of at most `width` characters, broken between words (a word
 * longer than a line is broken inside it); what does not fit ends the last line with "…".
 */
export function wrapLabel(label: string, width = 24, lines = 2): string[] {
  const words = label.trim().split(/\s+/).filter(Boolean);
  const out: string[] = [];
  let line = "";
  let i = 0;
  while (i < words.length && out.length < lines) {
    const w = words[i]!;
    if (!line && w.length > width) {
      out.push(w.slice(0, width));
      words[i] = w.slice(width);
      continue;
    }
    if (!line) line = w;
    else if (line.length + 1 + w.length <= width) line += ` ${w}`;
    else {
      out.push(line);
      line = "";
      continue;
    }
    i++;
  }
  if (line) out.push(line); // every word was taken: the loop left only with room to spare
  if (i < words.length && out.length) {
    const last = out.length - 1;
    const kept = out[last]!.length >= width ? out[last]!.slice(0, width - 1) : out[last]!;
    out[last] = `${kept.replace(/\s+$/, "")}…`;
  }
  return out;
}
