import { GrpcStatus } from '@sandbox/runtime';
import { DATASET_VERSION, findEntity } from '../../src/domain';
import { openPosition, sealPosition, type Position } from '../../src/domain/page-token';
import { entityOrdinal } from '../../src/domain/packs';
import { dataUrl, get, SIGNING_KEY, thrown } from './support/data-endpoint';

const employees = findEntity('hr', 'employees');
const position: Position = { kind: 'cursor', datasetVersion: DATASET_VERSION, entity: entityOrdinal(employees), shape: 2, pageSize: 25, offset: 75 };

/** Changes one character of the value, keeping it in the base64url alphabet. */
function tamper(value: string, at: number): string {
  const swapped = value[at] === 'A' ? 'B' : 'A';
  return value.slice(0, at) + swapped + value.slice(at + 1);
}

const nextCursor = (query: string) => new URL(get(dataUrl('hr', 'employees', query)).body.nextLink!).searchParams.get('cursor')!;
const nextToken = (query: string) => get(dataUrl('hr', 'employees', query)).body.nextPageToken!;

describe('sealing and opening positions', () => {
  it('when a position is sealed and opened with the same key, then it comes back unchanged', () => {
    expect(openPosition(sealPosition(position, SIGNING_KEY), 'cursor', SIGNING_KEY)).toEqual(position);
    const far = { ...position, kind: 'token' as const, pageSize: 1000, offset: 2 ** 40 + 7 };
    expect(openPosition(sealPosition(far, SIGNING_KEY), 'token', SIGNING_KEY)).toEqual(far);
  });

  it('when a value is sealed, then it is short, URL-safe and shows no URL, path or number', () => {
    const value = sealPosition(position, SIGNING_KEY);
    expect(value).toMatch(/^[A-Za-z0-9_-]{40}$/);
    const decoded = Buffer.from(value, 'base64url').toString('latin1');
    expect(decoded).not.toMatch(/https?:|\/|playground|employees|75/);
  });

  it.each(Array.from({ length: 40 }, (_, i) => [i]))('when character %i of a cursor is changed, then invalid_cursor', (at) => {
    const value = sealPosition(position, SIGNING_KEY);
    expect(thrown(() => openPosition(tamper(value, at), 'cursor', SIGNING_KEY))).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_cursor' });
  });

  it.each([
    ['empty', ''],
    ['cut short', sealPosition(position, SIGNING_KEY).slice(0, 39)],
    ['one character too long', `${sealPosition(position, SIGNING_KEY)}A`],
    ['padded', `${sealPosition(position, SIGNING_KEY)}=`],
    ['not base64url', `${sealPosition(position, SIGNING_KEY).slice(0, 39)}+`],
    ['a page number', '2'],
  ])('when the cursor is %s, then invalid_cursor', (_, value) => {
    const e = thrown(() => openPosition(value, 'cursor', SIGNING_KEY));
    expect(e).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_cursor' });
    expect(e.message).toContain('The cursor');
  });

  it('when a cursor was sealed with another key, then invalid_cursor saying it was not issued here', () => {
    const foreign = sealPosition(position, 'some-other-server-key');
    const e = thrown(() => openPosition(foreign, 'cursor', SIGNING_KEY));
    expect(e).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_cursor' });
    expect(e.message).toContain('another server');
  });
});

describe('cursors and tokens at the endpoint', () => {
  it('when the cursor is tampered with, then invalid_cursor', () => {
    const cursor = nextCursor('paginate=cursor');
    expect(thrown(() => get(dataUrl('hr', 'employees', `paginate=cursor&cursor=${tamper(cursor, 20)}`)))).toMatchObject({
      status: GrpcStatus.INVALID_ARGUMENT,
      code: 'invalid_cursor',
    });
  });

  it('when the page token is tampered with, then invalid_page_token', () => {
    const token = nextToken('paginate=token');
    const e = thrown(() => get(dataUrl('hr', 'employees', `pageToken=${tamper(token, 10)}`)));
    expect(e).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_page_token' });
    expect(e.message).toContain('The pageToken');
  });

  it('when a page token from another server is sent, then invalid_page_token', () => {
    const foreign = sealPosition({ ...position, kind: 'token' }, 'another-key');
    expect(thrown(() => get(dataUrl('hr', 'employees', `pageToken=${foreign}`)))).toMatchObject({ code: 'invalid_page_token' });
  });

  it('when a cursor is reused on another entity, then invalid_cursor naming where it belongs', () => {
    const cursor = nextCursor('paginate=cursor');
    const e = thrown(() => get(dataUrl('hr', 'departments', `cursor=${cursor}`)));
    expect(e).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_cursor' });
    expect(e.message).toContain('was issued for hr/employees, not hr/departments');
  });

  it('when a page token is reused on an entity of another pack, then invalid_page_token', () => {
    const token = nextToken('paginate=token');
    expect(thrown(() => get(dataUrl('fpa', 'departments', `pageToken=${token}`)))).toMatchObject({ code: 'invalid_page_token' });
  });

  it('when a cursor is reused with a different shape, then invalid_cursor naming both shapes', () => {
    const cursor = nextCursor('paginate=cursor&shape=nested');
    const e = thrown(() => get(dataUrl('hr', 'employees', `cursor=${cursor}&shape=flat`)));
    expect(e).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_cursor' });
    expect(e.message).toContain('shape=nested');
    expect(e.message).toContain('shape=flat');
  });

  it('when a cursor is reused with a different page size, then invalid_cursor', () => {
    const cursor = nextCursor('paginate=cursor&page_size=20');
    const e = thrown(() => get(dataUrl('hr', 'employees', `cursor=${cursor}&page_size=21`)));
    expect(e).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_cursor' });
    expect(e.message).toContain('page_size=20');
  });

  it('when a page token is reused with a different page size, then invalid_page_token', () => {
    const token = nextToken('paginate=token&page_size=20');
    expect(thrown(() => get(dataUrl('hr', 'employees', `pageToken=${token}&page_size=50`)))).toMatchObject({ code: 'invalid_page_token' });
  });

  it('when a cursor is sent without shape and page_size, then it continues with its own', () => {
    const cursor = nextCursor('paginate=cursor&shape=list-of-lists&page_size=3');
    const { body } = get(dataUrl('hr', 'employees', `cursor=${cursor}`));
    expect(body.shape).toBe('list-of-lists');
    expect(body.pagination).toMatchObject({ style: 'cursor', page_size: 3, returned: 3 });
    expect(body.data.slice(1)).toEqual(get(dataUrl('hr', 'employees', 'page=2&page_size=3&shape=list-of-lists')).body.data.slice(1));
  });

  it('when a cursor is sent as a page token, then invalid_page_token telling to send it as cursor', () => {
    const cursor = nextCursor('paginate=cursor');
    const e = thrown(() => get(dataUrl('hr', 'employees', `pageToken=${cursor}`)));
    expect(e).toMatchObject({ code: 'invalid_page_token' });
    expect(e.message).toContain('is a cursor');
  });

  it('when a page token is sent as a cursor, then invalid_cursor telling to send it as pageToken', () => {
    const token = nextToken('paginate=token');
    const e = thrown(() => get(dataUrl('hr', 'employees', `cursor=${token}`)));
    expect(e).toMatchObject({ code: 'invalid_cursor' });
    expect(e.message).toContain('is a page token');
  });

  it('when a cursor from an older dataset version is sent, then invalid_cursor', () => {
    const old = sealPosition({ ...position, datasetVersion: DATASET_VERSION - 1 }, SIGNING_KEY);
    const e = thrown(() => get(dataUrl('hr', 'employees', `cursor=${old}`)));
    expect(e).toMatchObject({ code: 'invalid_cursor' });
    expect(e.message).toContain(`dataset version ${DATASET_VERSION - 1}`);
  });

  it('when a cursor issued by the link style is followed in the cursor style, then it is accepted', () => {
    const cursor = nextCursor('paginate=link&page_size=4');
    expect(get(dataUrl('hr', 'employees', `paginate=cursor&cursor=${cursor}`)).body.data).toEqual(
      get(dataUrl('hr', 'employees', 'page=2&page_size=4')).body.data,
    );
  });
});
