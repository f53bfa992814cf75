// Prints the one closing line CI reads: "N passed, N failed".
const { readFileSync, existsSync } = require('node:fs');

const file = process.argv[2];
if (!existsSync(file)) {
  console.log('0 passed, 1 failed');
  console.error('summarize-jest: jest wrote no results (it failed before running tests)');
  process.exit(0);
}
const results = JSON.parse(readFileSync(file, 'utf8'));
// A suite that failed to load counts as a failure even though it ran no test.
const brokenSuites = results.numRuntimeErrorTestSuites ?? 0;
console.log(`${results.numPassedTests} passed, ${results.numFailedTests + brokenSuites} failed`);
