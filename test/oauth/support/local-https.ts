/**
 * A real https server on loopback for Client ID Metadata Document tests: a self-signed
 * certificate made here with node:crypto (an ECDSA P-256 key, the X.509 DER written by hand:
 * node has no certificate builder and the project no dependency for one), a server that serves
 * the documents the test sets and counts the requests, and the fetch the embedded Account is
 * given through its test seam (src/oauth/client-documents.ts) — it trusts that certificate only.
 */
import https from 'node:https';
import { generateKeyPairSync, sign } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { ClientDocumentTestSeam } from '../../../src/oauth/index.js';

function der(tag: number, content: Buffer): Buffer {
  const length = content.length < 0x80 ? Buffer.from([content.length])
    : content.length < 0x100 ? Buffer.from([0x81, content.length]) : Buffer.from([0x82, content.length >> 8, content.length & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, content]);
}
const seq = (...parts: Buffer[]) => der(0x30, Buffer.concat(parts));
function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number) as [number, number, ...number[]];
  const bytes = [40 * a + b];
  for (const n of rest) {
    const chunk = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
}
const utcTime = (date: Date) => der(0x17, Buffer.from(`${date.toISOString().slice(2, 19).replace(/[-:T]/g, '')}Z`));
const commonName = (cn: string) => seq(der(0x31, seq(oid('2.5.4.3'), der(0x0c, Buffer.from(cn)))));

/** A self-signed certificate for `localhost` and 127.0.0.1, valid from an hour ago for a day (real time: TLS checks it). */
export function selfSignedCertificate(): { key: string; cert: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ecdsaWithSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const now = Date.now();
  const altNames = seq(der(0x82, Buffer.from('localhost')), der(0x87, Buffer.from([127, 0, 0, 1])));
  const extensions = der(0xa3, seq(
    seq(oid('2.5.29.17'), der(0x04, altNames)),
    seq(oid('2.5.29.19'), der(0x01, Buffer.from([0xff])), der(0x04, seq(der(0x01, Buffer.from([0xff]))))),
  ));
  const tbs = seq(
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, Buffer.from([0x01, ...Array.from({ length: 7 }, () => Math.floor(Math.random() * 256))])),
    ecdsaWithSha256,
    commonName('localhost'),
    seq(utcTime(new Date(now - 3_600_000)), utcTime(new Date(now + 86_400_000))),
    commonName('localhost'),
    publicKey.export({ type: 'spki', format: 'der' }),
    extensions,
  );
  const signature = sign('sha256', tbs, privateKey);
  const certificate = seq(tbs, ecdsaWithSha256, der(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const lines = certificate.toString('base64').match(/.{1,64}/g) ?? [];
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    cert: `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`,
  };
}

export interface DocumentServer {
  /** `https://localhost:<port>` */
  readonly origin: string;
  /** What each path answers (a JSON value, or a raw body). */
  readonly documents: Map<string, unknown>;
  /** Every path requested, in order. */
  readonly requests: string[];
  /** The fetch the app is given (its test seam): trusts this server's certificate, nothing else. */
  readonly seam: ClientDocumentTestSeam;
  close(): Promise<void>;
}

export async function startDocumentServer(): Promise<DocumentServer> {
  const { key, cert } = selfSignedCertificate();
  const documents = new Map<string, unknown>();
  const requests: string[] = [];
  const server = https.createServer({ key, cert }, (req, res) => {
    requests.push(req.url ?? '');
    const document = documents.get(req.url ?? '');
    if (document === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' });
    res.end(typeof document === 'string' ? document : JSON.stringify(document));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://localhost:${(server.address() as AddressInfo).port}`;
  const seam: ClientDocumentTestSeam = {
    fetch: (url, init) => new Promise<Response>((resolve, reject) => {
      const request = https.request(url, {
        method: init.method ?? 'GET', ca: cert, family: 4, signal: init.signal ?? undefined,
        headers: Object.fromEntries(new Headers(init.headers).entries()),
      }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') headers.set(name, value);
          resolve(new Response(Buffer.concat(chunks), { status: response.statusCode ?? 500, headers }));
        });
        response.on('error', reject);
      });
      request.on('error', reject);
      request.end();
    }),
  };
  return {
    origin, documents, requests, seam,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
