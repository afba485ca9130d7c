/**
 * decodeBoleto (src/api/codes/boleto.ts, issue 30 item 1): real codes from the READMEs and tests
 * of the npm packages evaluated (each fixture names package, version and file), and codes built
 * here with check digits from this file's own small implementation (`ref` below: written apart
 * from the module, array weights instead of running counters, so a shared mistake is unlikely).
 * Every refusal asserts the exact issue list, so the message names the check that failed.
 */
import { expect } from 'chai';
import { ApiError } from '../../../src/api/errors.js';
import { decodeBoleto, dueDateFromFactor, type BankBoleto, type DecodedBoleto, type UtilityBoleto } from '../../../src/api/codes/boleto.js';
// An independent reference implementation of the check digits and layouts, for building codes.
import { boletoReference as ref } from '../support/payment-codes.js';

/** `s` with the digit at `i` replaced by another digit (+1 mod 10 unless given). */
function changeDigit(s: string, i: number, to?: string): string {
  return s.slice(0, i) + (to ?? String((Number(s[i]) + 1) % 10)) + s.slice(i + 1);
}

function issuesOf(work: () => unknown): { path: string; message: string }[] {
  try {
    work();
  } catch (err) {
    expect(err).to.be.instanceOf(ApiError);
    const apiError = err as ApiError;
    expect(apiError.code).to.equal('VALIDATION_ERROR');
    return (apiError.details?.['issues'] ?? []) as { path: string; message: string }[];
  }
  expect.fail('expected a VALIDATION_ERROR');
}

function expectRefused(input: unknown, messages: string[], path = 'code'): void {
  expect(issuesOf(() => decodeBoleto(input, path, '2026-01-15'))).to.deep.equal(messages.map((message) => ({ path, message })));
}

function bank(input: string, referenceDate: string): BankBoleto {
  const decoded: DecodedBoleto = decodeBoleto(input, 'code', referenceDate);
  expect(decoded.kind).to.equal('bank');
  return decoded as BankBoleto;
}

function utility(input: string): UtilityBoleto {
  const decoded: DecodedBoleto = decodeBoleto(input, 'code', '2026-01-15');
  expect(decoded.kind).to.equal('utility');
  return decoded as UtilityBoleto;
}

// ---------------------------------------------------------------------------------------------

describe('decodeBoleto: the reference implementation in this file', () => {
  it('agrees with the real codes below (so the codes built with it are real-shaped)', () => {
    // @mrmgomes/boleto-utils 1.3.3, test/test.js
    expect(ref.bankLine('10499898100000214032006561000100040099726390')).to.equal('10492006506100010004200997263900989810000021403');
    expect(ref.utilityLine('85820000000572503282035607082021053959190446')).to.equal('858200000007572503282030560708202107539591904460');
    expect(ref.utilityLine('84630000000299902962020041013600000200644114')).to.equal('846300000003299902962024004101360008002006441147');
    // Banco Central / bank manuals: 2000-07-03 = 1000, 2025-02-21 = 9999, 2025-02-22 = 1000.
    expect([ref.factorFor('2000-07-03'), ref.factorFor('2025-02-21'), ref.factorFor('2025-02-22')]).to.deep.equal(['1000', '9999', '1000']);
  });
});

describe('decodeBoleto: bank boletos from the packages', () => {
  const cases: { source: string; input: string; referenceDate: string; want: Partial<BankBoleto> }[] = [
    {
      source: '@mrmgomes/boleto-utils 1.3.3, test/test.js (barcode; vencimento 2022-05-10)',
      input: '10499898100000214032006561000100040099726390',
      referenceDate: '2022-05-01',
      want: { bank_code: '104', amount_cents: 21403, due_date_factor: '8981', due_date: '2022-05-10', digitable_line: '10492006506100010004200997263900989810000021403' },
    },
    {
      source: '@mrmgomes/boleto-utils 1.3.3, test/test.js (linha digitável of the same boleto)',
      input: '10492006506100010004200997263900989810000021403',
      referenceDate: '2022-05-01',
      want: { bank_code: '104', amount_cents: 21403, due_date: '2022-05-10', barcode: '10499898100000214032006561000100040099726390' },
    },
    {
      source: '@mrmgomes/boleto-utils 1.3.3, test/test.js (vencimentoComNovoFator2025: factor 8981 in the second cycle)',
      input: '10492006506100010004200997263900989810000021403',
      referenceDate: '2046-12-01',
      want: { due_date: '2046-12-30' },
    },
    {
      source: '@mrmgomes/boleto-utils 1.3.3, test/test.js (credit-card boleto: factor 0000, amount 0)',
      input: '23794150099001980167035000211405700000000000000',
      referenceDate: '2026-01-15',
      want: { bank_code: '237', due_date_factor: '0000', due_date: null, amount_cents: null, barcode: '23797000000000000004150090019801673500021140' },
    },
    {
      source: '@mrmgomes/boleto-utils 1.3.3, test/test.js (the same, as a barcode)',
      input: '23797000000000000004150090019801673500021140',
      referenceDate: '2026-01-15',
      want: { due_date: null, amount_cents: null, digitable_line: '23794150099001980167035000211405700000000000000' },
    },
    {
      source: 'boleto-brasileiro-validator 1.0.5, README.md (masked linha digitável)',
      input: '23793.38128 60007.827136 95000.063305 9 75520000370000',
      referenceDate: '2018-06-01',
      want: { bank_code: '237', amount_cents: 370000, due_date_factor: '7552', due_date: '2018-06-11', digitable_line: '23793381286000782713695000063305975520000370000', barcode: '23799755200003700003381260007827139500006330' },
    },
    {
      source: 'boleto-brasileiro-validator 1.0.5, README.md (Banco do Brasil barcode)',
      input: '00193373700000001000500940144816060680935031',
      referenceDate: '2007-12-01',
      want: { bank_code: '001', amount_cents: 100, due_date_factor: '3737', due_date: '2007-12-31', free_field: '0500940144816060680935031' },
    },
    {
      source: '@brazilian-utils/brazilian-utils 2.4.0, dist/get-boleto-info.d.ts (example with referenceDate 2025-06-15: due 2018-07-15)',
      input: '00190000090114971860168524522114675860000102656',
      referenceDate: '2025-06-15',
      want: { bank_code: '001', amount_cents: 102656, due_date: '2018-07-15' },
    },
    {
      source: '@brazilian-utils/brazilian-utils 2.4.0, dist/is-valid-boleto.d.ts (the same line, masked)',
      input: '0019000009 01149.718601 68524.522114 6 75860000102656',
      referenceDate: '2025-06-15',
      want: { digitable_line: '00190000090114971860168524522114675860000102656', due_date: '2018-07-15' },
    },
  ];
  expect(cases).to.not.be.empty;
  for (const { source, input, referenceDate, want } of cases) {
    it(`decodes ${source}`, () => {
      const decoded = bank(input, referenceDate);
      expect(decoded).to.include(want);
      expect(decoded.currency_code).to.equal('9');
      expect(decoded.barcode).to.match(/^\d{44}$/);
      expect(decoded.digitable_line).to.match(/^\d{47}$/);
    });
  }

  it('takes 1 as the general digit where 11 − remainder is 10 or 11 (remainder 1 or 0), and refuses 0 there', () => {
    // Search free fields (deterministically) until both remainders have a boleto.
    const found = new Map<number, string>();
    for (let n = 0; found.size < 2 && n < 1000; n++) {
      const body = '3419' + '1500' + '0000012345' + String(n).padStart(25, '0');
      const remainder = ref.remainder11(body);
      if ((remainder === 0 || remainder === 1) && !found.has(remainder)) found.set(remainder, body);
    }
    expect([...found.keys()].sort()).to.deep.equal([0, 1]);
    for (const body of found.values()) {
      const withOne = body.slice(0, 4) + '1' + body.slice(4);
      expect(bank(withOne, '2026-01-15').barcode).to.equal(withOne);
      expect(bank(ref.bankLine(withOne), '2026-01-15').barcode).to.equal(withOne);
      expectRefused(body.slice(0, 4) + '0' + body.slice(4), ['the general check digit does not match']);
    }
  });

  it('gives the same payment identity (barcode) for the barcode and the linha of one boleto', () => {
    const fromLine = bank('10492006506100010004200997263900989810000021403', '2022-05-01');
    const fromBarcode = bank('10499898100000214032006561000100040099726390', '2022-05-01');
    expect(fromLine).to.deep.equal(fromBarcode);
  });
});

describe('decodeBoleto: the due-date factor around the 2025-02-22 rollover (reference date pinned)', () => {
  const free = '1234567890123456789012345';
  const lineDueOn = (date: string) => ref.bankLine(ref.bankBarcode({ bank: '341', factor: ref.factorFor(date), amount: 15075, free }));
  const cases: { due: string; referenceDate: string; note: string }[] = [
    { due: '2025-02-21', referenceDate: '2025-02-10', note: 'factor 9999, the last of the first cycle, read before the rollover' },
    { due: '2025-02-21', referenceDate: '2025-03-10', note: 'factor 9999 read after the rollover: still 2025-02-21 (overdue), not 2049' },
    { due: '2025-02-22', referenceDate: '2025-02-10', note: 'factor 1000 read before the rollover: the new cycle, not 2000-07-03' },
    { due: '2025-02-22', referenceDate: '2025-03-10', note: 'factor 1000 read after the rollover' },
    { due: '2025-06-02', referenceDate: '2025-01-10', note: 'factor 1100 issued before the rollover for a date after it' },
    { due: '2026-03-15', referenceDate: '2026-03-01', note: 'a due date in the new cycle (factor 1386)' },
    { due: '2024-12-20', referenceDate: '2026-03-01', note: 'an old-cycle boleto (factor 9936) read a year after the rollover' },
    { due: '2000-10-11', referenceDate: '2000-09-01', note: 'factor 1100 read in 2000: the first cycle' },
  ];
  expect(cases).to.not.be.empty;
  for (const { due, referenceDate, note } of cases) {
    it(`${due} seen on ${referenceDate}: ${note}`, () => {
      const decoded = bank(lineDueOn(due), referenceDate);
      expect(decoded.due_date_factor).to.equal(ref.factorFor(due));
      expect(decoded.due_date).to.equal(due);
      expect(decoded.amount_cents).to.equal(15075);
    });
  }

  it('takes the nearest candidate; at exactly 4500 days either way (the only tie) the later one', () => {
    // Factor 1000: 2000-07-03 or 2025-02-22; 2012-10-28 is 4500 days after the first and before the second.
    expect(dueDateFromFactor(1000, '2012-10-27')).to.equal('2000-07-03');
    expect(dueDateFromFactor(1000, '2012-10-28')).to.equal('2025-02-22');
    // Factor 9999: 2025-02-21 or 2049-10-13 (9000 days later); 2037-06-18 is 4500 days from each.
    expect(dueDateFromFactor(9999, '2037-06-17')).to.equal('2025-02-21');
    expect(dueDateFromFactor(9999, '2037-06-18')).to.equal('2049-10-13');
  });

  it('reads factors below 1000 in the first cycle only (the new cycles start at 1000), and factor 0 as no due date', () => {
    expect(dueDateFromFactor(1, '2030-01-01')).to.equal('1997-10-08');
    expect(dueDateFromFactor(999, '2030-01-01')).to.equal('2000-07-02');
    expect(dueDateFromFactor(0, '2030-01-01')).to.equal(null);
  });

  it('refuses a reference date that is not YYYY-MM-DD (a caller bug, not a bad code)', () => {
    expect(() => dueDateFromFactor(1000, '2026-02-30')).to.throw(RangeError);
    expect(() => decodeBoleto('10492006506100010004200997263900989810000021403', 'code', 'today')).to.throw(RangeError);
  });

  it('decodes an amount of 0 as null (amount not fixed) and keeps the due date', () => {
    const decoded = bank(ref.bankBarcode({ bank: '033', factor: ref.factorFor('2026-05-20'), amount: 0, free }), '2026-05-01');
    expect(decoded).to.include({ amount_cents: null, due_date: '2026-05-20', bank_code: '033' });
  });

  it('decodes factor 0000 as no due date and keeps the amount', () => {
    const decoded = bank(ref.bankLine(ref.bankBarcode({ bank: '748', factor: '0000', amount: 99_999_999_99, free })), '2026-05-01');
    expect(decoded).to.include({ amount_cents: 9_999_999_999, due_date: null, due_date_factor: '0000' });
  });
});

describe('decodeBoleto: arrecadação from the packages', () => {
  const cases: { source: string; input: string; want: Partial<UtilityBoleto> }[] = [
    {
      source: '@mrmgomes/boleto-utils 1.3.3, test/test.js (energy, modulo 11)',
      input: '838600000050096000190009000801782309000343062712',
      want: { segment: 3, segment_name: 'energia_e_gas', value_type: 'effective', check_modulo: 11, amount_cents: 50960, company_id: '0019', barcode: '83860000005096000190000008017823000034306271' },
    },
    {
      source: '@mrmgomes/boleto-utils 1.3.3, test/test.js (the same, as a barcode)',
      input: '83860000005096000190000008017823000034306271',
      want: { amount_cents: 50960, digitable_line: '838600000050096000190009000801782309000343062712' },
    },
    {
      source: '@mrmgomes/boleto-utils 1.3.3, test/test.js (telecom, modulo 10)',
      input: '846300000003299902962024004101360008002006441147',
      want: { segment: 4, segment_name: 'telecomunicacoes', value_type: 'effective', check_modulo: 10, amount_cents: 2999, company_id: '0296', barcode: '84630000000299902962020041013600000200644114' },
    },
    {
      source: '@mrmgomes/boleto-utils 1.3.3, test/test.js (government, modulo 11, barcode)',
      input: '85820000000572503282035607082021053959190446',
      want: { segment: 5, segment_name: 'orgaos_governamentais', check_modulo: 11, amount_cents: 5725, company_id: '0328', digitable_line: '858200000007572503282030560708202107539591904460' },
    },
    {
      source: 'boleto-brasileiro-validator 1.0.5, README.md (spaced linha, modulo 10)',
      input: '836200000005 667800481000 180975657313 001589636081',
      want: { segment: 3, check_modulo: 10, amount_cents: 6678, company_id: '0048', barcode: '83620000000667800481001809756573100158963608' },
    },
    {
      source: 'boleto-brasileiro-validator 1.0.5, README.md (hyphenated linha, modulo 11)',
      input: '85890000460-9 52460179160-5 60759305086-5 83148300001-0',
      want: { segment: 5, check_modulo: 11, amount_cents: 4605246, company_id: '0179', barcode: '85890000460524601791606075930508683148300001' },
    },
    {
      source: 'boleto-brasileiro-validator 1.0.5, README.md (barcode, listed there under "Bancário" though it starts with 8)',
      input: '84890000000404201622018060519042958603411122',
      want: { segment: 4, check_modulo: 11, amount_cents: 4042, company_id: '0162' },
    },
    {
      source: '@brazilian-utils/brazilian-utils 2.4.0, dist/get-boleto-info.d.ts (amount 2461, segment 4)',
      input: '846100000005246100291102005460339004695895061080',
      want: { segment: 4, value_type: 'effective', check_modulo: 10, amount_cents: 2461, company_id: '0029' },
    },
  ];
  expect(cases).to.not.be.empty;
  for (const { source, input, want } of cases) {
    it(`decodes ${source}`, () => {
      const decoded = utility(input);
      expect(decoded).to.include(want);
      expect(decoded.barcode).to.match(/^8\d{43}$/);
      expect(decoded.digitable_line).to.match(/^8\d{47}$/);
      expect(decoded.free_field).to.equal(decoded.barcode.slice(19));
    });
  }
});

describe('decodeBoleto: arrecadação built here', () => {
  const cases: { valueId: string; modulo: 10 | 11; type: 'effective' | 'reference' }[] = [
    { valueId: '6', modulo: 10, type: 'effective' },
    { valueId: '7', modulo: 10, type: 'reference' },
    { valueId: '8', modulo: 11, type: 'effective' },
    { valueId: '9', modulo: 11, type: 'reference' },
  ];
  expect(cases).to.not.be.empty;
  for (const { valueId, modulo, type } of cases) {
    it(`value identifier ${valueId}: modulo ${modulo}, ${type} value`, () => {
      const barcode = ref.utilityBarcode({ segment: '2', valueId, value: '00000012345', rest: '7777' + '1234567890123456789012345' });
      const inputs = [barcode, ref.utilityLine(barcode)];
      expect(inputs).to.not.be.empty;
      for (const input of inputs) {
        const decoded = utility(input);
        expect(decoded).to.include({ barcode, digitable_line: ref.utilityLine(barcode), segment: 2, segment_name: 'saneamento', check_modulo: modulo, value_type: type, company_id: '7777' });
        expect(decoded.amount_cents).to.equal(type === 'effective' ? 12345 : null);
      }
    });
  }

  it('reads segment 6 (carnês) with the 8-digit CNPJ root as the company identification', () => {
    const barcode = ref.utilityBarcode({ segment: '6', valueId: '8', value: '00000100000', rest: '12345678' + '901234567890123456789' });
    expect(utility(ref.utilityLine(barcode))).to.include({ segment_name: 'carnes_e_assemelhados', company_id: '12345678', free_field: '901234567890123456789', amount_cents: 100000 });
  });

  it('names every segment FEBRABAN defines', () => {
    const names = ['1', '2', '3', '4', '5', '6', '7', '9'].map((segment) => utility(ref.utilityBarcode({ segment, valueId: '6', value: '00000000100', rest: '0'.repeat(29) })).segment_name);
    expect(names).to.deep.equal(['prefeituras', 'saneamento', 'energia_e_gas', 'telecomunicacoes', 'orgaos_governamentais', 'carnes_e_assemelhados', 'multas_de_transito', 'uso_exclusivo_do_banco']);
  });
});

describe('decodeBoleto: refusals name the check that failed', () => {
  const line = '10492006506100010004200997263900989810000021403'; // @mrmgomes/boleto-utils 1.3.3, test/test.js
  const barcode = '10499898100000214032006561000100040099726390';

  it('a changed amount digit (field 5): the general check digit', () => {
    expectRefused(changeDigit(line, 40), ['the general check digit does not match']);
  });

  it('a changed digit in field 1: field 1 and the general check digit', () => {
    expectRefused(changeDigit(line, 6), ['field 1 check digit does not match', 'the general check digit does not match']);
  });

  it('a changed digit in field 2 with the general digit rebuilt: field 2 alone (what a barcode-rebuilding validator misses)', () => {
    const changed = changeDigit(line, 12); // line 10–19 = barcode 24–33
    const rebuiltBarcode = ref.bankBarcode({ bank: '104', factor: '8981', amount: 21403, free: changeDigit(barcode, 26).slice(19) });
    const forged = changed.slice(0, 32) + rebuiltBarcode[4] + changed.slice(33);
    expect(forged[32]).to.not.equal(line[32]); // the general digit did have to change
    expectRefused(forged, ['field 2 check digit does not match']);
  });

  it('a wrong field 3 check digit alone', () => {
    expectRefused(changeDigit(line, 31), ['field 3 check digit does not match']);
  });

  it('a wrong general digit, in a linha and in a barcode', () => {
    expectRefused(changeDigit(line, 32), ['the general check digit does not match']);
    expectRefused(changeDigit(barcode, 4), ['the general check digit does not match']);
    expectRefused(changeDigit(barcode, 30), ['the general check digit does not match']);
  });

  it('a real formatting example whose general digit does not match (@brazilian-utils/brazilian-utils 2.4.0, dist/parse-boleto.d.ts)', () => {
    expectRefused('10491.44338 55119.000002 00000.000141 3 25230000093423', ['the general check digit does not match']);
  });

  it('a currency code other than 9 (real), with every check digit right', () => {
    expectRefused(ref.bankLine(ref.bankBarcode({ bank: '001', currency: '0', factor: '1500', amount: 100, free: '0'.repeat(25) })), ['the currency code must be 9 (real)']);
  });

  const utilityLine = '846300000003299902962024004101360008002006441147'; // @mrmgomes/boleto-utils 1.3.3, test/test.js

  it('a wrong arrecadação block check digit alone', () => {
    expectRefused(changeDigit(utilityLine, 23), ['block 2 check digit does not match']);
    expectRefused(changeDigit('858200000007572503282030560708202107539591904460', 47), ['block 4 check digit does not match']);
  });

  it('a changed arrecadação digit: its block and the general check digit', () => {
    expectRefused(changeDigit(utilityLine, 26), ['block 3 check digit does not match', 'the general check digit does not match']);
    expectRefused(changeDigit('84630000000299902962020041013600000200644114', 20), ['the general check digit does not match']);
  });

  it('a wrong arrecadação general digit with every block digit right', () => {
    const barcode44 = changeDigit('83860000005096000190000008017823000034306271', 3);
    expectRefused(ref.utilityLine(barcode44), ['the general check digit does not match']);
  });

  it('a real formatting example whose digits do not match (@brazilian-utils/brazilian-utils 2.4.0, dist/parse-boleto.d.ts)', () => {
    expectRefused('82630000001-1 09880010070-2 02410202400-0 00020510451-9', [
      'block 1 check digit does not match', 'block 2 check digit does not match', 'block 3 check digit does not match', 'block 4 check digit does not match',
      'the general check digit does not match',
    ]);
  });

  it('a value identifier other than 6, 7, 8 or 9', () => {
    expectRefused(changeDigit(utilityLine, 2, '5'), ['the value identifier (3rd digit) must be 6, 7, 8 or 9']);
  });

  it('a segment FEBRABAN does not define (0, 8), with every check digit right', () => {
    const undefinedSegments = ['0', '8'];
    expect(undefinedSegments).to.not.be.empty;
    for (const segment of undefinedSegments) {
      expectRefused(ref.utilityBarcode({ segment, valueId: '6', value: '00000000100', rest: '0'.repeat(29) }), ['the segment (2nd digit) must be 1 to 7 or 9']);
    }
  });

  it('a 48-digit line that does not start with 8 (boleto-brasileiro-validator 1.0.5, README.md: its own "false" example)', () => {
    expectRefused('536200000005 667800481000 180975657313 001589636081', ['a 48-digit line is an arrecadação line and must start with 8']);
  });

  const lengths = [0, 1, 33, 43, 45, 46, 49, 88];
  expect(lengths).to.not.be.empty;
  for (const length of lengths) {
    it(`${length} digits: wrong length`, () => {
      expectRefused('1'.repeat(length), ['must have 44, 47 or 48 digits']);
    });
  }

  it('a 33-digit code (boleto-brasileiro-validator 1.0.5, README.md: its own "false" example)', () => {
    expectRefused('001933737000000144816060680935031', ['must have 44, 47 or 48 digits']);
  });

  const notTyped = [
    `${line.slice(0, 46)}a`,
    `O${line.slice(1)}`,
    `${line.slice(0, 20)}/${line.slice(20)}`,
    `${line.slice(0, 20)},${line.slice(20)}`,
    `${line}\n`,
    `\t${line}`,
    `${line.slice(0, 20)}\u00a0${line.slice(20)}`,
    `${line.slice(0, 5)}\uff11${line.slice(6)}`,
  ];
  expect(notTyped).to.not.be.empty;
  for (const input of notTyped) {
    it(`refuses ${JSON.stringify(input.replace(/\d/g, '#'))}: only digits, spaces, dots and hyphens`, () => {
      expectRefused(input, ['may contain only digits, spaces, dots and hyphens']);
    });
  }

  it('refuses what is not a string', () => {
    const notStrings: unknown[] = [Number('10499898100000214032006561000100040099726390'), null, undefined, ['1']];
    expect(notStrings).to.not.be.empty;
    for (const input of notStrings) {
      expectRefused(input, ['must be a string']);
    }
  });

  it('puts the issue at the path the caller gives and never echoes the input', () => {
    const input = changeDigit(line, 31);
    try {
      decodeBoleto(input, 'payable.code', '2026-01-15');
      expect.fail('expected a VALIDATION_ERROR');
    } catch (err) {
      expect(err).to.be.instanceOf(ApiError);
      const envelope = JSON.stringify((err as ApiError).toEnvelope());
      expect(envelope).to.include('"path":"payable.code"');
      const parts = [input, input.slice(0, 10), input.slice(10, 21), input.slice(33)];
      expect(parts).to.not.be.empty;
      for (const part of parts) expect(envelope).to.not.include(part);
    }
  });
});
