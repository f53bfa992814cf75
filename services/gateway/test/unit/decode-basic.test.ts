import { decodeBasic } from '../../src/auth/schemes/basic';

describe('decodeBasic', () => {
  it('splits at the first colon, so a secret may contain colons', () => {
    expect(decodeBasic(Buffer.from('app_1:se:cret').toString('base64'))).toEqual({ user: 'app_1', password: 'se:cret' });
  });

  it('when there is no colon or the text is not base64, then nothing is decoded', () => {
    expect(decodeBasic(Buffer.from('nocolon').toString('base64'))).toBeUndefined();
    expect(decodeBasic('not base64!')).toBeUndefined();
  });
});
