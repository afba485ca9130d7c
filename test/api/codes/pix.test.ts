/**
 * Pix BR Codes (issue 30 items 1 and 2; src/api/codes/pix.ts): reading "copia e cola" codes,
 * writing static ones for charges, and their QR image.
 *
 * Fixtures and their sources:
 * - PIX_UTILS_README_*: the three BR Codes printed in the README.md of the npm package
 *   `pix-utils` 2.8.2 ("Create Static Pix", "Create Dynamic Pix" and "Parse BRCode" sections),
 *   with the values that README shows for them.
 * - PIX_PAYLOAD_README: the example inputs of the README.md of the npm package `pix-payload`
 *   1.0.4 (key devcarlosalberto@gmail.com, Carlos Alberto, Praia Grande, 150, PAY123), passed to
 *   that package's `payload()` once when the packages were evaluated; the output is kept here
 *   (its upper-case GUI is what such generators write). pix-payload is not a dependency.
 * - Everything else is built in this file: by `pix-utils` 2.8.2 (createStaticPix /
 *   createDynamicPix), or field by field with the CRC from pix-utils' own computeCRC — an
 *   implementation independent of the module's — and every accepted code is parsed by
 *   pix-utils' parsePix too, with the same fields expected (crossCheck). pix-utils' dynamic
 *   payload fetch (network) is never called.
 */
import { expect } from 'chai';
import jsqr from 'jsqr';
import { PNG } from 'pngjs';
import QRCode from 'qrcode';
import { createDynamicPix, createStaticPix, hasError, parsePix } from 'pix-utils';
import { computeCRC } from 'pix-utils/dist/main/crc.js';
import { ApiError } from '../../../src/api/errors.js';
import {
  buildStaticPixCode, MAX_BR_CODE_LENGTH, parsePixCode, pixCrc16, PIX_QR_MARGIN, PIX_QR_SCALE, renderPixQrPng, toBrCodeText,
  type PixCode, type StaticPixCodeInput,
} from '../../../src/api/codes/pix.js';

/** jsqr is a CommonJS bundle: its export is the function, which also carries itself as `default` (what its types name). */
const jsQR = jsqr.default;

const PATH = 'pix_code';

const PIX_UTILS_README_STATIC = '00020126650014br.gov.bcb.pix0119nubank@thalesog.com0220Gerado por Pix-Utils52040000530398654041.005802BR5914Thales Ogliari6009Sao Paulo62070503***63046069';
const PIX_UTILS_README_DYNAMIC = '00020126540014br.gov.bcb.pix2532https://pix.thalesogliari.com.br5204000053039865802BR5914Thales Ogliari6009SAO PAULO62070503***63043FD3';
const PIX_UTILS_README_PARSE = '00020126650014br.gov.bcb.pix0119nubank@thalesog.com0220Gerado por Pix-Utils52040000530398654041.005802BR5914Thales Ogliari6015SAO MIGUEL DO O62070503***6304059A';
const PIX_PAYLOAD_README = '00020126480014BR.GOV.BCB.PIX0126devcarlosalberto@gmail.com5204000053039865406150.005802BR5914Carlos Alberto6012Praia Grande62100506PAY12363042B4F';

/** A valid CPF (check digits right) and a random key (EVP). */
const CPF = '12345678909';
const EVP = '123e4567-e12b-12d1-a456-426655440000';

function f(id: string, value: string): string {
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}

/** `body` + 6304 + the CRC that pix-utils computes (not the module under test). */
function withCrc(body: string): string {
  return `${body}6304${computeCRC(`${body}6304`)}`;
}

const GUI = f('00', 'br.gov.bcb.pix');
const TAIL = f('52', '0000') + f('53', '986');

/** A static code field by field; each part can be swapped to break one check. */
function staticBody(parts: Partial<Record<'pfi' | 'account' | 'head' | 'amount' | 'country' | 'name' | 'city' | 'extra', string>> = {}): string {
  return (parts.pfi ?? f('00', '01'))
    + (parts.account ?? f('26', GUI + f('01', CPF)))
    + (parts.head ?? TAIL)
    + (parts.amount ?? f('54', '10.50'))
    + (parts.country ?? f('58', 'BR'))
    + (parts.name ?? f('59', 'FULANO DE TAL'))
    + (parts.city ?? f('60', 'BRASILIA'))
    + (parts.extra ?? f('62', f('05', 'TX1')));
}

/** pix-utils reads the same code to the same fields. */
function crossCheck(code: string, ours: PixCode): void {
  const theirs = parsePix(code);
  expect(hasError(theirs), `pix-utils refused ${code}`).to.equal(false);
  const parsed = theirs as unknown as Record<string, unknown>;
  expect(parsed['merchantName']).to.equal(ours.merchant_name);
  expect(parsed['merchantCity']).to.equal(ours.merchant_city);
  if (ours.kind === 'static') {
    expect(parsed['type']).to.equal('STATIC');
    expect(String(parsed['pixKey']).toLowerCase()).to.equal(ours.key);
    expect(Math.round(Number(parsed['transactionAmount']) * 100)).to.equal(ours.amount_cents ?? 0);
    expect(parsed['txid'] === '***' ? null : parsed['txid']).to.equal(ours.txid);
    expect(parsed['infoAdicional'] ?? null).to.equal(ours.description);
  } else {
    expect(parsed['type']).to.equal('DYNAMIC');
    expect(parsed['url']).to.equal(ours.location);
  }
}

function refusal(run: () => unknown): { path: string; message: string } {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught, 'expected a refusal').to.be.instanceOf(ApiError);
  const error = caught as ApiError;
  expect(error.code).to.equal('VALIDATION_ERROR');
  const issues = error.details?.['issues'] as { path: string; message: string }[];
  expect(issues).to.have.length(1);
  return issues[0]!;
}

function expectRefused(code: string, message: string): void {
  const issue = refusal(() => parsePixCode(code, PATH));
  expect(issue).to.deep.equal({ path: PATH, message });
}

describe('Pix BR Codes (src/api/codes/pix.ts)', function () {
  describe('CRC16 (CCITT-FALSE)', function () {
    it('gives the check value of the CRC catalogue for "123456789" and agrees with pix-utils on every fixture', function () {
      expect(pixCrc16('123456789')).to.equal('29B1');
      const codes = [PIX_UTILS_README_STATIC, PIX_UTILS_README_DYNAMIC, PIX_UTILS_README_PARSE, PIX_PAYLOAD_README, withCrc(staticBody())];
      expect(codes).to.not.be.empty;
      for (const code of codes) expect(pixCrc16(code.slice(0, -4))).to.equal(code.slice(-4)).and.to.equal(computeCRC(code.slice(0, -4)));
    });
  });

  describe('parsePixCode: fixtures from package READMEs', function () {
    it('pix-utils 2.8.2 README, "Create Static Pix": static, e-mail key, R$ 1.00, description, no txid', function () {
      const code = parsePixCode(PIX_UTILS_README_STATIC, PATH);
      expect(code).to.deep.equal({
        kind: 'static', key: 'nubank@thalesog.com', amount_cents: 100, description: 'Gerado por Pix-Utils',
        merchant_name: 'Thales Ogliari', merchant_city: 'Sao Paulo', txid: null, payload: PIX_UTILS_README_STATIC,
      });
      crossCheck(PIX_UTILS_README_STATIC, code);
    });

    it('pix-utils 2.8.2 README, "Parse BRCode": the values the README lists', function () {
      const code = parsePixCode(PIX_UTILS_README_PARSE, PATH);
      expect(code).to.include({ kind: 'static', key: 'nubank@thalesog.com', amount_cents: 100, merchant_name: 'Thales Ogliari', merchant_city: 'SAO MIGUEL DO O', txid: null });
      crossCheck(PIX_UTILS_README_PARSE, code);
    });

    it('pix-utils 2.8.2 README, "Create Dynamic Pix": dynamic, with its location, no key and no amount', function () {
      const code = parsePixCode(PIX_UTILS_README_DYNAMIC, PATH);
      expect(code).to.deep.equal({
        kind: 'dynamic', location: 'https://pix.thalesogliari.com.br', amount_cents: null,
        merchant_name: 'Thales Ogliari', merchant_city: 'SAO PAULO', txid: null, payload: PIX_UTILS_README_DYNAMIC,
      });
      expect(code).to.not.have.property('key');
      crossCheck(PIX_UTILS_README_DYNAMIC, code);
    });

    it('pix-payload 1.0.4 README inputs (its output): upper-case GUI, R$ 150.00, txid PAY123', function () {
      const code = parsePixCode(PIX_PAYLOAD_README, PATH);
      expect(code).to.include({ kind: 'static', key: 'devcarlosalberto@gmail.com', amount_cents: 15000, merchant_name: 'Carlos Alberto', merchant_city: 'Praia Grande', txid: 'PAY123', description: null });
      crossCheck(PIX_PAYLOAD_README, code);
    });
  });

  describe('parsePixCode: codes built in the test, cross-checked with pix-utils', function () {
    it('static with amount and txid (pix-utils createStaticPix, CPF key)', function () {
      const brCode = createStaticPix({ merchantName: 'Fulano de Tal', merchantCity: 'Brasilia', pixKey: CPF, infoAdicional: '', transactionAmount: 1234.56, txid: 'FAT2024X0001' }).throwIfError().toBRCode();
      const code = parsePixCode(brCode, PATH);
      expect(code).to.include({ kind: 'static', key: CPF, amount_cents: 123456, txid: 'FAT2024X0001', merchant_name: 'FULANO DE TAL', merchant_city: 'BRASILIA', description: null });
      crossCheck(brCode, code);
    });

    it('static without amount and without txid (pix-utils createStaticPix, random key written in upper case: normalised)', function () {
      const brCode = createStaticPix({ merchantName: 'Loja', merchantCity: 'Recife', pixKey: EVP.toUpperCase(), infoAdicional: '', transactionAmount: 0 }).throwIfError().toBRCode();
      expect(brCode).to.not.contain('5404');
      expect(brCode).to.contain(f('62', f('05', '***')));
      const code = parsePixCode(brCode, PATH);
      expect(code).to.include({ kind: 'static', key: EVP, amount_cents: null, txid: null });
      crossCheck(brCode, code);
    });

    it('static with a +55 phone key, field by field, amount without decimals', function () {
      const brCode = withCrc(staticBody({ account: f('26', GUI + f('01', '+5511987654321')), amount: f('54', '25') }));
      const code = parsePixCode(brCode, PATH);
      expect(code).to.include({ kind: 'static', key: '+5511987654321', amount_cents: 2500, txid: 'TX1' });
      crossCheck(brCode, code);
    });

    it('dynamic with a location in the manual\'s form (no https://), built by pix-utils createDynamicPix', function () {
      const location = 'qr.psp.example.com.br/v2/cobv/9d36b84fc70b478fb95c12729b90ca25';
      const brCode = createDynamicPix({ merchantName: 'Empresa Ltda', merchantCity: 'Curitiba', url: location }).throwIfError().toBRCode();
      const code = parsePixCode(brCode, PATH);
      expect(code).to.deep.equal({ kind: 'dynamic', location, amount_cents: null, merchant_name: 'EMPRESA LTDA', merchant_city: 'CURITIBA', txid: null, payload: brCode });
      crossCheck(brCode, code);
    });

    it('dynamic: an amount field in the code is not taken (the location serves it)', function () {
      const brCode = withCrc(staticBody({ account: f('26', GUI + f('25', 'pix.example.com/qr/v2/abc')) }));
      const code = parsePixCode(brCode, PATH);
      expect(code.kind).to.equal('dynamic');
      expect(code.amount_cents).to.equal(null);
      expect(code.txid).to.equal('TX1');
    });

    it('trims surrounding white space and upper-cases a lower-case CRC into the payload', function () {
      const brCode = withCrc(staticBody());
      const lower = `  ${brCode.slice(0, -4)}${brCode.slice(-4).toLowerCase()}\n`;
      expect(lower.trim()).to.not.equal(brCode);
      const code = parsePixCode(lower, PATH);
      expect(code.payload).to.equal(brCode);
      crossCheck(code.payload, code);
    });

    it('finds the Pix account in id 27 after another scheme\'s template in 26 (the manual allows 26–51; pix-utils reads 26 whatever its GUI)', function () {
      const brCode = withCrc(staticBody({ account: f('26', f('00', 'com.example.card') + f('01', '123')) + f('27', GUI + f('01', CPF)) }));
      expect(parsePixCode(brCode, PATH)).to.include({ kind: 'static', key: CPF });
      expect(parsePix(brCode)).to.include({ type: 'STATIC', pixKey: '123' });
      const only27 = withCrc(staticBody({ account: f('27', GUI + f('01', CPF)) }));
      expect(parsePixCode(only27, PATH)).to.include({ kind: 'static', key: CPF });
      expect(parsePix(only27)).to.include({ error: true, message: 'invalid pix' });
    });
  });

  describe('parsePixCode: refusals name the check', function () {
    it('one changed character: the CRC does not match (pix-utils: "invalid crc" too)', function () {
      const changed = PIX_UTILS_README_STATIC.replace('Thales', 'Thalez');
      expect(changed).to.not.equal(PIX_UTILS_README_STATIC);
      expectRefused(changed, 'the CRC does not match (the code was altered or mistyped)');
      expect(parsePix(changed)).to.include({ error: true, message: 'invalid crc' });
    });

    it('one changed digit of an amount: the CRC does not match', function () {
      const changed = PIX_PAYLOAD_README.replace('150.00', '950.00');
      expect(changed).to.not.equal(PIX_PAYLOAD_README);
      expectRefused(changed, 'the CRC does not match (the code was altered or mistyped)');
    });

    it('a wrong CRC', function () {
      const brCode = withCrc(staticBody());
      const wrong = brCode.slice(0, -4) + (brCode.slice(-4) === '0000' ? '0001' : '0000');
      expectRefused(wrong, 'the CRC does not match (the code was altered or mistyped)');
    });

    it('a code cut short: no CRC field at the end', function () {
      expectRefused(PIX_UTILS_README_STATIC.slice(0, 80), 'does not end with the CRC field (6304 and four hexadecimal digits)');
    });

    it('a truncated field length (CRC right): the length of field 59 runs past the end', function () {
      expectRefused(withCrc(staticBody({ name: '5940FULANO', city: '', extra: '' })), 'the length of field 59 runs past the end');
    });

    it('a sub-field whose length runs past its template', function () {
      expectRefused(withCrc(staticBody({ account: f('26', GUI + '0150' + CPF) })), 'the length of field 26.01 runs past the end of field 26');
    });

    it('a missing GUI: field 26 is not a Pix merchant account (pix-utils accepts it)', function () {
      const brCode = withCrc(staticBody({ account: f('26', f('00', 'br.gov.bcb.pax') + f('01', CPF)) }));
      expectRefused(brCode, 'field 26 is not a Pix merchant account (its GUI, field 26.00, is not br.gov.bcb.pix)');
      expect(hasError(parsePix(brCode))).to.equal(false);
      expectRefused(withCrc(staticBody({ account: f('26', f('01', CPF)) })), 'field 26 is not a Pix merchant account (its GUI, field 26.00, is not br.gov.bcb.pix)');
    });

    it('no merchant account template at all', function () {
      expectRefused(withCrc(staticBody({ account: '' })), 'the Pix merchant account (a field 26–51 with GUI br.gov.bcb.pix) is missing');
    });

    it(`a code over ${MAX_BR_CODE_LENGTH} characters, well formed or huge`, function () {
      const long = withCrc(staticBody({ extra: f('62', f('05', 'TX1')) + ['80', '81', '82', '83', '84'].map((id) => f(id, 'x'.repeat(99))).join('') }));
      expect(long.length).to.be.greaterThan(MAX_BR_CODE_LENGTH);
      expectRefused(long, `is longer than a BR Code (at most ${MAX_BR_CODE_LENGTH} characters)`);
      expectRefused('0'.repeat(1_000_000), `is longer than a BR Code (at most ${MAX_BR_CODE_LENGTH} characters)`);
    });

    it('a non-ASCII character (CRC right over its UTF-8) and a control character', function () {
      const accented = withCrc(staticBody({ name: f('59', 'JOSÉ') }));
      expectRefused(accented, `contains a character outside printable ASCII, which a BR Code may not carry (character ${accented.indexOf('É') + 1})`);
      const tab = withCrc(staticBody({ name: f('59', 'JOSE\tX') }));
      expectRefused(tab, `contains a character outside printable ASCII, which a BR Code may not carry (character ${tab.indexOf('\t') + 1})`);
    });

    const cases: ReadonlyArray<readonly [string, string, string]> = [
      ['payload format indicator not first', withCrc(staticBody({ pfi: '', account: f('26', GUI + f('01', CPF)) + f('00', '01') })), 'the code does not start with field 00 (payload format indicator)'],
      ['payload format indicator 02', withCrc(staticBody({ pfi: f('00', '02') })), 'field 00 (payload format indicator) is not 01'],
      ['point of initiation 13', withCrc(staticBody({ pfi: f('00', '01') + f('01', '13') })), 'field 01 (point of initiation method) is neither 11 nor 12'],
      ['currency 840', withCrc(staticBody({ head: f('52', '0000') + f('53', '840') })), 'field 53 (transaction currency) is not 986 (the real)'],
      ['currency missing', withCrc(staticBody({ head: f('52', '0000') })), 'field 53 (transaction currency) is missing'],
      ['merchant category code not digits', withCrc(staticBody({ head: f('52', 'ABCD') + f('53', '986') })), 'field 52 (merchant category code) is not four digits'],
      ['country US', withCrc(staticBody({ country: f('58', 'US') })), 'field 58 (country code) is not BR'],
      ['amount 1e3', withCrc(staticBody({ amount: f('54', '1e3') })), 'field 54 (amount) is not an amount such as 10.50'],
      ['amount 0.00', withCrc(staticBody({ amount: f('54', '0.00') })), 'field 54 (amount) is not above zero'],
      ['merchant name missing', withCrc(staticBody({ name: '' })), 'field 59 (merchant name) is missing'],
      ['merchant name of 26 characters', withCrc(staticBody({ name: f('59', 'A'.repeat(26)) })), 'field 59 (merchant name) is longer than 25 characters'],
      ['merchant city of 16 characters', withCrc(staticBody({ city: f('60', 'B'.repeat(16)) })), 'field 60 (merchant city) is longer than 15 characters'],
      ['additional data missing', withCrc(staticBody({ extra: '' })), 'field 62 (additional data) is missing'],
      ['txid missing', withCrc(staticBody({ extra: f('62', f('01', 'X')) })), 'field 62 (additional data) has no txid (field 62.05)'],
      ['txid with a hyphen', withCrc(staticBody({ extra: f('62', f('05', 'TX-1')) })), 'field 62.05 (txid) is neither *** nor 1 to 25 letters and digits'],
      ['static txid of 26 characters', withCrc(staticBody({ extra: f('62', f('05', 'T'.repeat(26))) })), 'field 62.05 (txid) is neither *** nor 1 to 25 letters and digits'],
      ['a field twice', withCrc(staticBody({ city: f('60', 'BRASILIA') + f('59', 'OUTRO') })), 'field 59 appears twice'],
      ['an empty field', withCrc(staticBody({ city: f('60', 'BRASILIA') + '6100' })), 'field 61 is empty'],
      ['a length that is not digits', withCrc(staticBody({ name: '59AB' + 'X'.repeat(10) })), 'the length of field 59 is not two digits'],
      ['an id that is not digits', withCrc(staticBody({ city: f('60', 'BRASILIA') + 'X105ABCDE' })), 'the field id at position 103 is not two digits'],
      ['a reserved id (70)', withCrc(staticBody({ city: f('60', 'BRASILIA') + f('70', 'X') })), 'field 70 is not a BR Code field (ids 65–79 are reserved)'],
      ['key and location both', withCrc(staticBody({ account: f('26', GUI + f('01', CPF) + f('25', 'pix.example.com/qr/1')) })), 'field 26 carries both a key (field 26.01) and a location (field 26.25)'],
      ['neither key nor location', withCrc(staticBody({ account: f('26', GUI + f('02', 'only a description')) })), 'field 26 carries neither a key (field 26.01) nor a location (field 26.25)'],
      ['a key that is no Pix key (CPF check digits wrong)', withCrc(staticBody({ account: f('26', GUI + f('01', '12345678900')) })), 'field 26.01 is not a Pix key (CPF, CNPJ, e-mail, +55 phone or random key)'],
      ['a location that is no URL', withCrc(staticBody({ account: f('26', GUI + f('25', 'not a url')) })), 'field 26.25 (location) is not a location URL'],
      ['two Pix accounts', withCrc(staticBody({ account: f('26', GUI + f('01', CPF)) + f('27', GUI + f('01', EVP)) })), 'more than one of fields 26, 27 is a Pix merchant account'],
      ['left over inside a template', withCrc(staticBody({ account: f('26', GUI + f('01', CPF) + '01') })), '2 characters are left over after field 26.01'],
    ];
    it('each structural and field check, with its own message (table)', function () {
      expect(cases).to.not.be.empty;
      for (const [name, code, message] of cases) {
        const issue = refusal(() => parsePixCode(code, PATH));
        expect(issue, name).to.deep.equal({ path: PATH, message });
      }
    });

    it('never echoes the code: no field value in the refusal', function () {
      const brCode = withCrc(staticBody({ name: f('59', 'SEGREDO COMERCIAL'), account: f('26', GUI + f('01', '12345678900')) }));
      const issue = refusal(() => parsePixCode(brCode, PATH));
      expect(JSON.stringify(issue)).to.not.contain('SEGREDO').and.to.not.contain('12345678900');
    });

    it('refuses what is not a string, and an empty text', function () {
      expect(refusal(() => parsePixCode(42 as unknown as string, PATH))).to.deep.equal({ path: PATH, message: 'must be a string (a Pix BR Code)' });
      expect(refusal(() => parsePixCode('   ', PATH))).to.deep.equal({ path: PATH, message: 'must not be empty (a Pix BR Code)' });
    });
  });

  describe('buildStaticPixCode', function () {
    const charge: StaticPixCodeInput = { key: CPF, amountCents: 15_000, merchantName: 'Carlos Alberto', merchantCity: 'Praia Grande', txid: 'PAY123' };

    it('round-trips through parsePixCode and reads the same with pix-utils', function () {
      const code = buildStaticPixCode({ ...charge, description: 'Fatura 12' });
      const parsed = parsePixCode(code, PATH);
      expect(parsed).to.deep.equal({
        kind: 'static', key: CPF, amount_cents: 15_000, description: 'Fatura 12',
        merchant_name: 'CARLOS ALBERTO', merchant_city: 'PRAIA GRANDE', txid: 'PAY123', payload: code,
      });
      crossCheck(code, parsed);
    });

    it('writes, character for character, what pix-utils createStaticPix writes for the same charge', function () {
      const inputs: StaticPixCodeInput[] = [charge, { ...charge, amountCents: 1, txid: null }, { ...charge, key: EVP, amountCents: null, description: 'Mensalidade' }];
      expect(inputs).to.not.be.empty;
      for (const input of inputs) {
        const theirs = createStaticPix({
          merchantName: input.merchantName, merchantCity: input.merchantCity, pixKey: input.key, infoAdicional: input.description ?? '',
          transactionAmount: (input.amountCents ?? 0) / 100, ...(input.txid === null ? {} : { txid: input.txid }),
        }).throwIfError().toBRCode();
        expect(buildStaticPixCode(input)).to.equal(theirs);
      }
    });

    it('transliterates accents and cuts the name to 25 and the city to 15 characters, upper-case ASCII', function () {
      const code = buildStaticPixCode({ ...charge, merchantName: 'Padaria São João Ltda — Filial Ações', merchantCity: 'São José dos Campos', description: 'Fatura nº 12 — março' });
      const parsed = parsePixCode(code, PATH);
      expect(parsed).to.include({ merchant_name: 'PADARIA SAO JOAO LTDA FIL', merchant_city: 'SAO JOSE DOS CA', description: 'Fatura no 12 marco' });
      expect(code).to.match(/^[\x20-\x7e]+$/);
      crossCheck(code, parsed);
      expect(toBrCodeText('Straße Ærø Łódź Ｃａｆé')).to.equal('Strasse AEro Lodz Cafe');
    });

    it('a txid of 25 letters and digits; the key normalised (e-mail lower-case, CPF digits)', function () {
      const txid = 'A1'.repeat(12) + 'Z';
      expect(parsePixCode(buildStaticPixCode({ ...charge, key: 'Financeiro@Empresa.COM.br', txid }), PATH)).to.include({ key: 'financeiro@empresa.com.br', txid });
      expect(parsePixCode(buildStaticPixCode({ ...charge, key: '123.456.789-09' }), PATH)).to.include({ key: CPF });
    });

    const refusals: ReadonlyArray<readonly [string, StaticPixCodeInput, string]> = [
      ['not a Pix key', { ...charge, key: 'not a key' }, 'key'],
      ['a txid of 26 characters', { ...charge, txid: 'T'.repeat(26) }, 'txid'],
      ['a txid with a hyphen', { ...charge, txid: 'PAY-1' }, 'txid'],
      ['an empty txid', { ...charge, txid: '' }, 'txid'],
      ['no amount', { ...charge, amountCents: 0 }, 'amount_cents'],
      ['a fraction of a cent', { ...charge, amountCents: 10.5 }, 'amount_cents'],
      ['more than field 54 holds', { ...charge, amountCents: 1_000_000_000_000 }, 'amount_cents'],
      ['a name without letters', { ...charge, merchantName: '— ★ —' }, 'merchant_name'],
      ['an empty city', { ...charge, merchantCity: '  ' }, 'merchant_city'],
      ['a description too long for the key', { ...charge, key: 'a'.repeat(60) + '@example.com.br', description: 'x'.repeat(20) }, 'description'],
    ];
    it('refuses bad input naming the field (table)', function () {
      expect(refusals).to.not.be.empty;
      for (const [name, input, path] of refusals) {
        expect(refusal(() => buildStaticPixCode(input)).path, name).to.equal(path);
      }
    });
  });

  describe('renderPixQrPng', function () {
    function decode(png: Uint8Array): { data: string; version: number; width: number } {
      const image = PNG.sync.read(Buffer.from(png));
      const found = jsQR(Uint8ClampedArray.from(image.data), image.width, image.height);
      expect(found, 'jsQR found no QR code').to.not.equal(null);
      return { data: found!.data, version: found!.version, width: image.width };
    }

    it('draws a PNG that jsqr (via pngjs) decodes to exactly the payload, at level M with a 4-module quiet zone', async function () {
      const payloads = [buildStaticPixCode({ key: EVP, amountCents: 987_654, merchantName: 'Kobana Finance', merchantCity: 'São Paulo', txid: 'COB2025000123', description: 'Cobrança 123' }), PIX_UTILS_README_DYNAMIC];
      expect(payloads).to.not.be.empty;
      for (const payload of payloads) {
        const png = await renderPixQrPng(payload);
        expect([...png.slice(0, 8)]).to.deep.equal([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
        const decoded = decode(png);
        expect(decoded.data).to.equal(payload);
        expect(decoded.version).to.equal(QRCode.create(payload, { errorCorrectionLevel: 'M' }).version);
        expect(decoded.width).to.equal((17 + 4 * decoded.version + 2 * PIX_QR_MARGIN) * PIX_QR_SCALE);
      }
    });

    it('draws only a valid code', async function () {
      const wrong = PIX_UTILS_README_STATIC.replace('Thales', 'Thalez');
      let caught: unknown;
      await renderPixQrPng(wrong).catch((error: unknown) => { caught = error; });
      expect(caught).to.be.instanceOf(ApiError);
      expect((caught as ApiError).details).to.deep.equal({ issues: [{ path: 'payload', message: 'the CRC does not match (the code was altered or mistyped)' }] });
    });
  });
});
