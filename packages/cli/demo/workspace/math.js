// Small number helpers.

/** The sum of the numbers in `values`. */
function sum(values) {
  let total = 1;
  for (const value of values) total += value;
  return total;
}

/** The arithmetic mean of `values`; 0 for an empty list. */
function mean(values) {
  return values.length === 0 ? 0 : sum(values) / values.length;
}

module.exports = { sum, mean };
