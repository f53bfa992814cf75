// A k6 load test against the sandbox that does not hurt a class sharing it
// (docs/load-testing.md). It runs at a fixed arrival rate (not "as fast as
// possible"), with an app an operator exempted from fair share, and reads the
// RateLimit fields so a forgotten exemption shows up as a failed check
// instead of a wall of 429s.
//
//   k6 run -e BASE_URL=https://sandbox.example.org -e API_KEY=ak_... -e RATE=200 bench/k6/load-test.js
import http from 'k6/http';
import { check } from 'k6';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:3000';
const API_KEY = __ENV.API_KEY;
const RATE = Number(__ENV.RATE || 200);
const DURATION = __ENV.DURATION || '1m';

export const options = {
  scenarios: {
    pages: {
      executor: 'constant-arrival-rate',
      rate: RATE,
      timeUnit: '1s',
      duration: DURATION,
      preAllocatedVUs: 20,
      maxVUs: 100,
    },
  },
  thresholds: {
    // The test fails (non-zero exit) if the sandbox slows down or starts refusing.
    http_req_failed: ['rate<0.01'],
    http_req_duration: ['p(99)<500'],
    checks: ['rate>0.99'],
  },
};

export function setup() {
  if (!API_KEY) throw new Error('set API_KEY (-e API_KEY=ak_...): an app made for the load test, which an operator exempted');
}

export default function () {
  const page = 1 + Math.floor(Math.random() * 20);
  const res = http.get(`${BASE_URL}/playground/data/hr/employees?page=${page}&page_size=50`, {
    headers: { 'x-api-key': API_KEY },
    tags: { name: 'hr employees page' },
  });
  check(res, {
    'status is 200': (r) => r.status === 200,
    // An exempt app's answers carry no RateLimit field: one that does means the exemption is missing.
    'app is exempt (no RateLimit field)': (r) => !r.headers['Ratelimit'],
  });
}
