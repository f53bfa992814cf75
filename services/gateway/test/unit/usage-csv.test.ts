import type { identity } from '@sandbox/contracts';
import { usageCsv } from '../../src/routes/operators/usage-csv';
import { usageFileName } from '../../src/routes/operators/operations';

const row = (fields: Partial<identity.UsageRow> = {}): identity.UsageRow => ({
  day: '2030-06-01',
  userId: 'u1',
  email: 'ada@example.edu',
  app: '66f1c0a95e2b4d7a9c3e1f20',
  appId: 'app_Xq3V0d5yH2kq8Jr1mT9bWg',
  appName: 'Weather dashboard',
  authStyle: 'api_key_header',
  routeFamily: 'data',
  requests: 120,
  ...fields,
});

describe("usageCsv: the operators' usage export", () => {
  it('when rows are exported, then a header row names the columns and each row follows in order, CRLF-terminated', () => {
    expect(usageCsv([row(), row({ day: '2030-06-02', routeFamily: 'auth', requests: 3 })])).toBe(
      'day,user_id,email,app_id,app_name,auth_style,route_family,requests\r\n' +
        '2030-06-01,u1,ada@example.edu,app_Xq3V0d5yH2kq8Jr1mT9bWg,Weather dashboard,api_key_header,data,120\r\n' +
        '2030-06-02,u1,ada@example.edu,app_Xq3V0d5yH2kq8Jr1mT9bWg,Weather dashboard,api_key_header,auth,3\r\n',
    );
  });

  it('when there are no rows, then only the header row', () => {
    expect(usageCsv([])).toBe('day,user_id,email,app_id,app_name,auth_style,route_family,requests\r\n');
  });

  it.each([
    ['=HYPERLINK("https://evil.example","click")', `'=HYPERLINK(""https://evil.example"",""click"")"`],
    ['+1+1', "'+1+1"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tcmd', "'\tcmd"],
  ])("when a learner names an app %j, then the cell starts with ' and a spreadsheet shows it as text", (name, cell) => {
    const line = usageCsv([row({ appName: name })]).split('\r\n')[1]!;
    expect(line).toContain(`,${cell.startsWith("'=") ? `"${cell}` : cell},`);
    expect(line).not.toMatch(/,[=+\-@\t]/);
  });

  it('when a name holds a comma, a quote or a line break, then it is quoted as RFC 4180 says', () => {
    const line = usageCsv([row({ appName: 'a, "b"\nc' })])
      .split('\r\n')
      .slice(1)
      .join('\r\n');
    expect(line).toContain(',"a, ""b""\nc",');
  });

  it('when the file is named, then by its days, an open bound as start or end', () => {
    expect(usageFileName('2030-06-01', '2030-06-30')).toBe('usage-2030-06-01-2030-06-30.csv');
    expect(usageFileName(undefined, undefined)).toBe('usage-start-end.csv');
  });
});
