import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { hashRequest } from '../../src/api/idempotency.js';
import type { OperationInput } from '../../src/api/context.js';

const base: OperationInput = { path: { id: 'a' }, query: {}, body: { name: 'x', amount: '1.00' } };

describe('hashRequest()', () => {
  it('ignores key order and undefined members', () => {
    expect(hashRequest('taxes.create', base)).to.equal(hashRequest('taxes.create', { ...base, body: { amount: '1.00', name: 'x', extra: undefined } }));
  });

  const differing: { name: string; other: [string, OperationInput] }[] = [
    { name: 'another operation', other: ['taxes.update', base] },
    { name: 'another body value', other: ['taxes.create', { ...base, body: { name: 'y', amount: '1.00' } }] },
    { name: 'another path', other: ['taxes.create', { ...base, path: { id: 'b' } }] },
    { name: 'upload bytes', other: ['taxes.create', { ...base, upload: { bytes: new Uint8Array([1]) } }] },
  ];
  for (const { name, other } of differing) {
    it(`differs for ${name}`, () => expect(hashRequest(...other)).not.to.equal(hashRequest('taxes.create', base)));
  }

  it('differs for different upload bytes', () => {
    const a = hashRequest('attachments.upload', { ...base, upload: { bytes: new Uint8Array([1, 2]) } });
    const b = hashRequest('attachments.upload', { ...base, upload: { bytes: new Uint8Array([1, 3]) } });
    expect(a).not.to.equal(b);
  });

  // A long string (a file's base64) is hashed by its own digest, not copied into the canonical form.
  it('tells long strings apart by their content, and from any short value', () => {
    const file = (last: string) => ({ ...base, body: { content_base64: `${'A'.repeat(10_000)}${last}` } });
    expect(hashRequest('attachments.upload', file('A'))).to.equal(hashRequest('attachments.upload', file('A')));
    expect(hashRequest('attachments.upload', file('A'))).not.to.equal(hashRequest('attachments.upload', file('B')));
    const long = 'x'.repeat(5_000);
    const digest = createHash('sha256').update(long).digest('hex');
    for (const short of [digest, `#${digest}`, { sha256: digest }]) {
      expect(hashRequest('taxes.create', { ...base, body: { v: long } })).not.to.equal(hashRequest('taxes.create', { ...base, body: { v: short } }));
    }
  });
});
