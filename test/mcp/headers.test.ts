import { expect } from 'chai';
import { decodeHeaderValue } from '../../src/mcp/headers.js';
import { isOriginAllowed } from '../../src/mcp/origin.js';

describe('decodeHeaderValue()', function () {
  const cases: { given: string; want: string | null }[] = [
    { given: 'tools/call', want: 'tools/call' },
    { given: '=?base64?dG9vbHMvY2FsbA==?=', want: 'tools/call' },
    { given: `=?base64?${Buffer.from('pagar ção', 'utf8').toString('base64')}?=`, want: 'pagar ção' },
    { given: '=?base64??=', want: '' },
    { given: '=?base64?***?=', want: null },
    { given: '=?base64?dG9vbHMvY2FsbA?=', want: null },
    // Non-zero unused bits: not the canonical spelling of "a" (YQ==).
    { given: '=?base64?YR==?=', want: null },
    { given: '=?base64?YQ==?=', want: 'a' },
    { given: `=?base64?${Buffer.from([0xff, 0xfe]).toString('base64')}?=`, want: null },
  ];
  for (const { given, want } of cases) {
    it(`decodes ${JSON.stringify(given)} to ${JSON.stringify(want)}`, function () {
      expect(decodeHeaderValue(given)).to.equal(want);
    });
  }
});

describe('isOriginAllowed()', function () {
  const allowlist = ['http://localhost:*', 'https://app.example.com'];
  const cases: { given: string | undefined; want: boolean }[] = [
    { given: undefined, want: true },
    { given: 'http://localhost:5173', want: true },
    { given: 'http://localhost', want: true },
    { given: 'https://app.example.com', want: true },
    { given: 'https://app.example.com:8443', want: false },
    { given: 'http://localhost.evil.com', want: false },
    { given: 'http://localhost:80x', want: false },
    { given: 'null', want: false },
  ];
  for (const { given, want } of cases) {
    it(`answers ${want} for ${String(given)}`, function () {
      expect(isOriginAllowed(given, allowlist)).to.equal(want);
    });
  }
});
