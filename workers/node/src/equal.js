// Equality of replies as the worker contract defines it (src/rpcarena/protocol/replies.py): a
// missing key equals its default, doubles within a relative 1e-9, an int64 written as a string
// equal to the number, a BigInt (an integer JSON cannot hold in a double) equal to its value.

export const DOUBLE_TOLERANCE = 1e-9;

export function equivalent(got, want, tolerance = DOUBLE_TOLERANCE) {
  if (isObject(got) && isObject(want)) {
    for (const k of new Set([...Object.keys(got), ...Object.keys(want)])) {
      const g = k in got ? got[k] : defaultLike(want[k]);
      const w = k in want ? want[k] : defaultLike(got[k]);
      if (!equivalent(g, w, tolerance)) return false;
    }
    return true;
  }
  if (Array.isArray(got) && Array.isArray(want)) {
    return got.length === want.length && got.every((g, i) => equivalent(g, want[i], tolerance));
  }
  if (typeof got === "string" && typeof want === "string") return got === want;
  const gi = integer(got), wi = integer(want);
  if (gi !== undefined && wi !== undefined && (typeof got !== "number" || typeof want !== "number")) {
    return gi === wi;
  }
  if (typeof got === "number" && typeof want === "number") {
    if (got === want) return true;
    if (Number.isInteger(got) && Number.isInteger(want)) return false;
    const scale = Math.max(Math.abs(got), Math.abs(want));
    return Math.abs(got - want) <= Math.max(tolerance * scale, tolerance);
  }
  return got === want || (got == null && want == null);
}

function isObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

// An integer's exact value as a BigInt (a number, a BigInt, or an int64's decimal text), else undefined.
function integer(v) {
  if (typeof v === "bigint") return v;
  if (typeof v === "number") return Number.isSafeInteger(v) ? BigInt(v) : undefined;
  if (typeof v === "string" && /^-?\d+$/.test(v)) return BigInt(v);
  return undefined;
}

function defaultLike(v) {
  switch (typeof v) {
    case "boolean": return false;
    case "number": return 0;
    case "bigint": return 0n;
    case "string": return "";
    default: return Array.isArray(v) ? [] : isObject(v) ? {} : null;
  }
}
