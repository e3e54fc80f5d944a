// HdrHistograms as the contract has them: nanoseconds from 1 to 60 s at 3 significant digits, in
// the standard V2 compressed encoding, base64 (what every HdrHistogram library reads).
import * as hdr from "hdr-histogram-js";

export const LOWEST_NS = 1;
export const HIGHEST_NS = 60_000_000_000;

export function newHistogram() {
  return hdr.build({ lowestDiscernibleValue: LOWEST_NS, highestTrackableValue: HIGHEST_NS,
    numberOfSignificantValueDigits: 3, useWebAssembly: false });
}

export function clamp(ns) {
  return Math.min(Math.max(Math.round(ns), LOWEST_NS), HIGHEST_NS);
}

export function encode(histogram) {
  return hdr.encodeIntoCompressedBase64(histogram);
}

export function decode(text) {
  return hdr.decodeFromCompressedBase64(text, 32, false);
}

// The monotonic clock of every latency, in ns (performance.now is CLOCK_MONOTONIC, at sub-µs).
export function nowNs() {
  return performance.now() * 1e6;
}
