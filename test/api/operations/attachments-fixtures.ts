/**
 * Shared by the attachments tests (REST, MCP) and bench/upload-memory.ts: a real small PDF,
 * files of an exact size, REST calls with a bearer token and a workspace, and a multipart
 * body builder. No assertions here; the tests decide what to expect.
 */
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Database } from '../../../src/store/schema.js';

export const TEN_MB = 10 * 1024 * 1024;

/** A valid one-page PDF 1.4 ("Boleto de teste"), with a correct xref table. */
export function buildSmallPdf(text = 'Boleto de teste'): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    (() => {
      const stream = `BT /F1 24 Tf 72 720 Td (${text}) Tj ET`;
      return `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`;
    })(),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A "PDF" of exactly `size` bytes: the signature, then filler, then `salt` to make the bytes unique. */
export function buildSizedPdf(size: number, salt = ''): Buffer {
  const bytes = Buffer.alloc(size, 0x20);
  bytes.write('%PDF-1.4\n', 0, 'latin1');
  if (salt) bytes.write(salt, Math.max(9, size - salt.length), 'latin1');
  return bytes;
}

export const PNG_BYTES = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
  '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex');

export interface RestReply {
  readonly status: number;
  readonly headers: Headers;
  readonly json: any; // tests read nested fields freely
  readonly bytes: Buffer;
}

export async function callRest(
  url: string,
  token: string,
  workspaceId: string,
  method: string,
  path: string,
  body?: unknown,
  extraHeaders: Record<string, string> = {},
): Promise<RestReply> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'x-workspace-id': workspaceId, ...extraHeaders };
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const response = await fetch(`${url}${path}`, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
  const bytes = Buffer.from(await response.arrayBuffer());
  let json: unknown;
  try {
    json = bytes.length > 0 && (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(bytes.toString('utf8')) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, bytes };
}

export function buildForm(bytes: Uint8Array, fileName: string, contentType: string, title?: string): FormData {
  const form = new FormData();
  if (title !== undefined) form.append('title', title);
  form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>], { type: contentType }), fileName);
  return form;
}

/** A payable/receivable of the workspace with no attachment yet (demo data has some with files). */
export async function findUnlinkedTitle(db: Kysely<Database>, workspaceId: string, kind: 'payable' | 'receivable'): Promise<string> {
  const row = await db.selectFrom('titles').select('id')
    .where('workspace_id', '=', workspaceId).where('kind', '=', kind)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('attachment_links').select('attachment_links.id')
      .where('attachment_links.workspace_id', '=', workspaceId)
      .whereRef('attachment_links.parent_id', '=', 'titles.id'))))
    .orderBy('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function countBlobs(db: Kysely<Database>, workspaceId: string, sha256: string): Promise<number> {
  const row = await db.selectFrom('blobs').select(sql<number>`count(*)`.as('n'))
    .where('workspace_id', '=', workspaceId).where('sha256', '=', sha256)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
