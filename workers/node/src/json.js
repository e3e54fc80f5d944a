// JSON that keeps every int64: JSON.parse reads a number into a double, which holds integers only
// to 2^53 (1234567890123456789 would come back as ...800). Integers past that are read into BigInt
// (lossless-json); writers give BigInt back as a JSON number, as the contract's canonical JSON has it.
import { isInteger, isSafeNumber, parse, stringify } from "lossless-json";

function number(text) {
  return isInteger(text) && !isSafeNumber(text) ? BigInt(text) : parseFloat(text);
}

export function parseJSON(text) {
  return parse(text, null, number);
}

export function stringifyJSON(value) {
  return stringify(value);
}
