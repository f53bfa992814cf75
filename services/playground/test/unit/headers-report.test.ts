import { headersReport } from '../../src/domain/headers-report';
import { inbound, read } from './support/requests';

describe('headers, exactly as received', () => {
  it('when headers arrive in mixed case with repeats, then the list keeps case, order and repeats beside the normalised map', () => {
    const sent: Array<[string, string]> = [
      ['Host', '127.0.0.1:8080'],
      ['X-Custom', 'a'],
      ['accept', '*/*'],
      ['x-custom', 'b'],
      ['Cookie', 'x=1'],
      ['cookie', 'y=2'],
      ['User-Agent', 'one'],
      ['user-agent', 'two'],
    ];
    const answer = read(headersReport(inbound({ path: '/playground/headers', headers: sent })));
    expect(answer.status).toBe(200);
    expect(answer.json.received).toEqual(sent.map(([name, value]) => ({ name, value })));
    expect(answer.json.count).toBe(8);
    expect(answer.json.normalised).toEqual({ host: '127.0.0.1:8080', 'x-custom': 'a, b', accept: '*/*', cookie: 'x=1; y=2', 'user-agent': 'one' });
    expect(answer.json.notes).toEqual([
      'X-Custom was sent 2 times: joined with ", " into one value (RFC 9110 5.3: a list header may be split over several lines).',
      'Cookie was sent 2 times: joined with "; " into one Cookie value.',
      'User-Agent was sent 2 times: node keeps the first value and drops the rest (a second value of this header is meaningless or ambiguous).',
      expect.stringContaining('Header names keep the case your client wrote'),
    ]);
  });

  it('when the request came over HTTP/2, then the note says names arrive in lower case', () => {
    const answer = read(headersReport(inbound({ headers: [['x-a', '1']], httpVersion: '2.0' })));
    expect(answer.json.notes).toEqual(['HTTP/2.0 sends header names in lower case, so the case your client wrote is gone before any server sees it.']);
  });
});
