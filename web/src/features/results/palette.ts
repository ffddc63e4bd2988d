// The chart palette and its colour-vision-deficiency check. The series colours are Okabe and Ito's
// palette (Color Universal Design, 2008), chosen to stay distinct under protanopia, deuteranopia
// and tritanopia; `cvdDistinct` verifies it with the Machado, Oliveira and Fernandes (2009)
// simulation matrices (severity 1.0) and the CIE76 colour difference in CIELAB.

export const SERIES = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"] as const;
/** Benchmark line, significance marks and intervals: ink, readable on white under every deficiency. */
export const BENCHMARK_COLOUR = "#27273a";
export const POSITIVE = "#0072B2";
export const NEGATIVE = "#D55E00";

export function seriesColour(i: number): string {
  return SERIES[i % SERIES.length]!;
}

type RGB = [number, number, number];
const MACHADO: Record<"protanopia" | "deuteranopia" | "tritanopia", number[][]> = {
  protanopia: [
    [0.152286, 1.052583, -0.204868],
    [0.114503, 0.786281, 0.099216],
    [-0.003882, -0.048116, 1.051998],
  ],
  deuteranopia: [
    [0.367322, 0.860646, -0.227968],
    [0.280085, 0.672501, 0.047413],
    [-0.01182, 0.04294, 0.968881],
  ],
  tritanopia: [
    [1.255528, -0.076749, -0.178779],
    [-0.078411, 0.930809, 0.147602],
    [0.004733, 0.691367, 0.3039],
  ],
};

const toLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
const fromLinear = (c: number) => (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);
const clamp = (x: number) => Math.min(1, Math.max(0, x));

export function hexToRgb(hex: string): RGB {
  const n = parseInt(hex.slice(1), 16);
  return [((n >> 16) & 255) / 255, ((n >> 8) & 255) / 255, (n & 255) / 255];
}

export function simulate(rgb: RGB, kind: keyof typeof MACHADO): RGB {
  const m = MACHADO[kind];
  const lin = rgb.map(toLinear);
  return m.map((row) => fromLinear(clamp(row[0]! * lin[0]! + row[1]! * lin[1]! + row[2]! * lin[2]!))) as RGB;
}

export function toLab(rgb: RGB): RGB {
  const [r, g, b] = rgb.map(toLinear) as RGB;
  const x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
  const y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

export function deltaE(a: RGB, b: RGB): number {
  const p = toLab(a);
  const q = toLab(b);
  return Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

/** The smallest CIE76 difference between any two of the colours, seen normally and under each deficiency. */
export function minPairDifference(colours: readonly string[]): { vision: string; a: string; b: string; deltaE: number } {
  let worst = { vision: "normal", a: "", b: "", deltaE: Infinity };
  for (const vision of ["normal", "protanopia", "deuteranopia", "tritanopia"] as const) {
    const seen = colours.map((c) => (vision === "normal" ? hexToRgb(c) : simulate(hexToRgb(c), vision)));
    for (let i = 0; i < seen.length; i++)
      for (let j = i + 1; j < seen.length; j++) {
        const d = deltaE(seen[i]!, seen[j]!);
        if (d < worst.deltaE) worst = { vision, a: colours[i]!, b: colours[j]!, deltaE: d };
      }
  }
  return worst;
}
