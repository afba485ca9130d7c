/**
 * The pure rules behind attachments.upload (src/api/rules/attachments/): strict base64, content
 * types, magic bytes and file names. Tables of {given, want}; property tests for the parsers.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { ApiError } from '../../../src/api/errors.js';
import { decodeStrictBase64, maxEncodedLength } from '../../../src/api/rules/attachments/base64.js';
import { resolveContentType } from '../../../src/api/rules/attachments/content-types.js';
import { matchesSignature } from '../../../src/api/rules/attachments/magic-bytes.js';
import { sanitizeFileName } from '../../../src/api/rules/attachments/file-name.js';
import { checkUploadInput } from '../../../src/api/rules/attachments/upload-input.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
}

describe('decodeStrictBase64()', () => {
  it('decodes every byte string that Buffer encodes (round trip)', () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 1, maxLength: 300 }), (bytes) => {
      const encoded = Buffer.from(bytes).toString('base64');
      expect(Buffer.from(decodeStrictBase64(encoded, 1000)).equals(Buffer.from(bytes))).to.equal(true);
    }));
  });

  it('rejects any string containing a character outside the standard alphabet', () => {
    fc.assert(fc.property(
      fc.uint8Array({ minLength: 3, maxLength: 60 }),
      fc.constantFrom('-', '_', ' ', '\n', '*', '.', 'é', '=', '\u0000'),
      fc.nat(),
      (bytes, bad, at) => {
        const encoded = Buffer.from(bytes).toString('base64');
        const i = at % (encoded.length - 2); // never touches the padding, so the character is always misplaced
        const broken = encoded.slice(0, i) + bad + encoded.slice(i + 1);
        expect(codeOf(() => decodeStrictBase64(broken, 1000))).to.equal('VALIDATION_ERROR');
      },
    ));
  });

  const invalid: { given: string; why: string }[] = [
    { given: 'QUJD RA==', why: 'whitespace' },
    { given: 'QUJDRA', why: 'missing padding' },
    { given: 'QUJDR', why: 'length not a multiple of 4' },
    { given: 'QUJDRB==', why: 'non-zero unused bits' },
    { given: 'QUI=QUI=', why: 'padding in the middle' },
    { given: 'QUJD-_==', why: 'URL-safe alphabet' },
    { given: '', why: 'empty' },
  ];
  for (const { given, why } of invalid) {
    it(`rejects ${why} with VALIDATION_ERROR on content_base64`, () => {
      try {
        decodeStrictBase64(given, 1000);
        expect.fail('expected a VALIDATION_ERROR');
      } catch (error) {
        expect(error).to.be.instanceOf(ApiError);
        expect((error as ApiError).code).to.equal('VALIDATION_ERROR');
        expect((error as ApiError).details).to.have.nested.property('issues[0].path', 'content_base64');
      }
    });
  }

  it('accepts exactly the cap and rejects one byte more', () => {
    expect(decodeStrictBase64(Buffer.alloc(30, 1).toString('base64'), 30).length).to.equal(30);
    expect(codeOf(() => decodeStrictBase64(Buffer.alloc(31, 1).toString('base64'), 30))).to.equal('VALIDATION_ERROR');
  });

  it('rejects an over-long string by its length, before looking at its characters', () => {
    const huge = '!'.repeat(maxEncodedLength(30) + 4);
    const error = (() => { try { decodeStrictBase64(huge, 30); } catch (e) { return e as ApiError; } return undefined; })();
    expect(error?.details).to.have.nested.property('issues[0].message').that.contains('at most');
  });
});

describe('resolveContentType()', () => {
  const table: { given: [string, string]; want: string | 'UNPROCESSABLE_ENTITY' }[] = [
    { given: ['application/pdf', 'a.pdf'], want: 'application/pdf' },
    { given: ['IMAGE/PNG', 'a.png'], want: 'image/png' },
    { given: ['image/jpeg', 'a.jpg'], want: 'image/jpeg' },
    { given: ['image/jpg', 'a.jpg'], want: 'image/jpeg' },
    { given: ['text/xml; charset=utf-8', 'nfe.xml'], want: 'application/xml' },
    { given: ['application/x-ofx', 'extrato.ofx'], want: 'application/x-ofx' },
    { given: ['text/csv', 'a.csv'], want: 'text/csv' },
    { given: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'a.xlsx'], want: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' },
    { given: ['application/octet-stream', 'extrato.OFX'], want: 'application/x-ofx' },
    { given: ['application/octet-stream', 'programa.exe'], want: 'UNPROCESSABLE_ENTITY' },
    { given: ['text/html', 'a.html'], want: 'UNPROCESSABLE_ENTITY' },
    { given: ['image/svg+xml', 'a.svg'], want: 'UNPROCESSABLE_ENTITY' },
    { given: ['application/x-msdownload', 'a.pdf'], want: 'UNPROCESSABLE_ENTITY' },
    { given: ['constructor', 'a.pdf'], want: 'UNPROCESSABLE_ENTITY' },
  ];
  for (const { given, want } of table) {
    it(`resolves ${given[0]} (${given[1]}) to ${want}`, () => {
      if (want === 'UNPROCESSABLE_ENTITY') expect(codeOf(() => resolveContentType(...given))).to.equal(want);
      else expect(resolveContentType(...given).contentType).to.equal(want);
    });
  }
});

describe('matchesSignature()', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
  const table = [
    { kind: 'pdf', bytes: Buffer.from('%PDF-1.7\n'), want: true },
    { kind: 'pdf', bytes: png, want: false },
    { kind: 'pdf', bytes: Buffer.from('%PDF'), want: false },
    { kind: 'png', bytes: png, want: true },
    { kind: 'png', bytes: Buffer.from('%PDF-1.7'), want: false },
    { kind: 'jpeg', bytes: Buffer.from([0xff, 0xd8, 0xff, 0xe0]), want: true },
    { kind: 'jpeg', bytes: Buffer.from([0xff, 0xd8]), want: false },
    { kind: 'csv', bytes: Buffer.from('a,b\n'), want: true },
  ] as const;
  for (const { kind, bytes, want } of table) {
    it(`${want ? 'accepts' : 'rejects'} ${bytes.subarray(0, 4).toString('hex')}… as ${kind}`, () => {
      expect(matchesSignature(kind, bytes)).to.equal(want);
    });
  }
});

describe('sanitizeFileName()', () => {
  const table: { given: string; want: string }[] = [
    { given: 'nota.pdf', want: 'nota.pdf' },
    { given: '../../etc/passwd', want: 'passwd' },
    { given: 'C:\\Users\\ana\\boleto março.pdf', want: 'boleto março.pdf' },
    { given: 'a\u0000b\r\nc.pdf', want: 'abc.pdf' },
    { given: 'invoice\u202Efdp.exe', want: 'invoicefdp.exe' },
    { given: '   spaced.csv  ', want: 'spaced.csv' },
    { given: '..', want: 'file' },
    { given: 'dir/', want: 'file' },
    { given: '', want: 'file' },
    { given: '\u0007\u0008', want: 'file' },
  ];
  for (const { given, want } of table) {
    it(`turns ${JSON.stringify(given)} into ${JSON.stringify(want)}`, () => expect(sanitizeFileName(given)).to.equal(want));
  }

  it('keeps at most 255 characters and the extension', () => {
    const name = sanitizeFileName(`${'a'.repeat(400)}.pdf`);
    expect(Array.from(name)).to.have.length(255);
    expect(name.endsWith('.pdf')).to.equal(true);
  });

  it('never returns a separator, a control character or an empty name', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (raw) => {
      const name = sanitizeFileName(raw);
      expect(name).to.not.match(/[\\/\u0000-\u001f\u007f]/);
      expect(name.length).to.be.greaterThan(0);
      expect(Array.from(name).length).to.be.at.most(255);
    }));
  });
});

describe('checkUploadInput()', () => {
  const pdf = Buffer.from('%PDF-1.4\n%âãÏÓ\n');
  it('checks size before type: an oversized file of a forbidden type is a VALIDATION_ERROR', () => {
    const body = { file_name: 'a.exe', content_type: 'application/x-msdownload', content_base64: Buffer.alloc(40).toString('base64') };
    expect(codeOf(() => checkUploadInput({ path: {}, query: {}, body }, 30))).to.equal('VALIDATION_ERROR');
  });

  it('takes transport-read bytes from input.upload without content_base64', () => {
    const got = checkUploadInput({ path: {}, query: {}, body: { file_name: '../x.pdf', content_type: 'application/pdf', title: ' Nota ' }, upload: { bytes: pdf } });
    expect(got).to.include({ fileName: 'x.pdf', contentType: 'application/pdf', title: 'Nota' });
  });

  it('rejects a PNG declared as PDF with UNPROCESSABLE_ENTITY', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
    const body = { file_name: 'a.pdf', content_type: 'application/pdf', content_base64: png.toString('base64') };
    expect(codeOf(() => checkUploadInput({ path: {}, query: {}, body }))).to.equal('UNPROCESSABLE_ENTITY');
  });

  it('requires content_base64 when no bytes were read by the transport', () => {
    expect(codeOf(() => checkUploadInput({ path: {}, query: {}, body: { file_name: 'a.pdf', content_type: 'application/pdf' } }))).to.equal('VALIDATION_ERROR');
  });
});
