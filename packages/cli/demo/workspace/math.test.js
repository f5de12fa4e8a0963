const { mean, sum } = require("./math.js");

const checks = [
  ["sum([]) is 0", () => sum([]), 0],
  ["sum([2, 3, 4]) is 9", () => sum([2, 3, 4]), 9],
  ["mean([2, 4, 6]) is 4", () => mean([2, 4, 6]), 4],
];

let failed = 0;
checks.forEach(([name, run, expected], i) => {
  const actual = run();
  if (Object.is(actual, expected)) {
    console.log(`ok ${i + 1} - ${name}`);
  } else {
    failed++;
    console.log(`not ok ${i + 1} - ${name}: expected ${expected}, got ${actual}`);
  }
});

console.log(failed === 0 ? `all ${checks.length} checks passed` : `${failed} of ${checks.length} checks failed`);
process.exitCode = failed === 0 ? 0 : 1;
