/**
 * Reads one `multipart/form-data` upload (`file`, optional `title`) from a Koa request, streamed
 * with a hard cap: reading stops at cap + 1 byte and only the capped file bytes are ever held.
 * It does not check types, magic bytes or file names (src/api/rules/attachments/ does that in the
 * upload operation, for REST and MCP alike) and does not render errors (the REST adapter does).
 */
import type { AppContext } from './app-state.js';
import busboy from 'busboy';
import type { OperationInput } from '../api/index.js';
import { ApiError, validationError, type ValidationIssue } from '../api/index.js';
import { PREPARSED_BODY } from '../api/index.js';
import { HttpError } from './errors.js';
import { abortedBody, declaresOversizedBody, reserveBodyMemory, reserveDeclaredBody } from './capped-body.js';

export interface MultipartUpload {
  readonly fileName: string;
  readonly contentType: string;
  readonly bytes: Uint8Array;
  readonly title?: string;
}

export interface MultipartOptions {
  /** Largest accepted file, in bytes (issue 7: 10 MB = 10 * 1024 * 1024). */
  readonly maxFileBytes: number;
  /** Largest accepted `title` value, in bytes. */
  readonly maxTitleBytes?: number;
}

/** Room for boundaries, part headers and the title on top of the file itself. */
const ENVELOPE_ALLOWANCE_BYTES = 64 * 1024;
const DEFAULT_MAX_TITLE_BYTES = 4 * 1024;

/**
 * Parses the request body of a multipart upload. Throws `HttpError(413)` when the file (or the
 * declared `Content-Length`) is over the cap, `ApiError('VALIDATION_ERROR')` for a malformed
 * body, a missing `file`, a second file or any field other than `title`.
 */
export async function parseMultipartUpload(ctx: AppContext, opts: MultipartOptions): Promise<MultipartUpload> {
  rejectDeclaredOversize(ctx, opts.maxFileBytes);
  const req = ctx.req;
  // The body-memory budget (capped-body.ts): a declared length is reserved before reading; a
  // chunked upload reserves its file bytes as they arrive (collectUpload).
  const declared = reserveDeclaredBody(req, Number.POSITIVE_INFINITY);
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      // Browsers send UTF-8 file names in `filename="…"`; busboy's default would read them as latin1.
      defParamCharset: 'utf8',
      limits: {
        // busboy emits 'limit' when a file reaches exactly this size: cap + 1 means "over the cap".
        fileSize: opts.maxFileBytes + 1,
        files: 1,
        fields: 4,
        parts: 6,
        fieldSize: opts.maxTitleBytes ?? DEFAULT_MAX_TITLE_BYTES,
        fieldNameSize: 100,
        headerPairs: 20,
      },
    });
  } catch {
    throw validationError([{ path: 'body', message: 'The body must be multipart/form-data with a boundary.' }]);
  }
  return collectUpload(ctx, parser, declared === null);
}

/** A declared length far beyond what a capped upload can need is refused before reading a byte. */
function rejectDeclaredOversize(ctx: AppContext, maxFileBytes: number): void {
  if (declaresOversizedBody(ctx.req, maxFileBytes + ENVELOPE_ALLOWANCE_BYTES)) throw tooLarge();
}

function tooLarge(): HttpError {
  // Connection: close — the rest of the body is never parsed, so the socket cannot be reused.
  return new HttpError(413, 'The file is larger than the upload limit.', { Connection: 'close' }, 'upload_too_large');
}

type FileStream = Parameters<busboy.BusboyEvents['file']>[1];

/** One upload being read: the file's bytes so far, its title, the issues found, and whether it settled. */
class UploadCollector {
  private readonly chunks: Buffer[] = [];
  private received = 0;
  private file: { fileName: string; contentType: string } | undefined;
  private fileDone = false;
  private finished = false;
  private title: string | undefined;
  private readonly issues: ValidationIssue[] = [];
  private settled = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly parser: busboy.Busboy,
    /** A chunked upload reserves its file bytes from the body-memory budget as they arrive. */
    private readonly reserveAsRead: boolean,
    private readonly resolve: (upload: MultipartUpload) => void,
    private readonly reject: (error: Error) => void,
  ) {}

  fail(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.chunks.length = 0;
    // Stop parsing and buffering. The rest of the body is discarded (never held) only until
    // the error response is flushed; `Connection: close` then makes Node destroy the socket.
    // Discarding instead of pausing lets a client that is still sending read the response
    // instead of a connection reset in the common small-overflow case.
    this.ctx.req.unpipe(this.parser);
    this.ctx.req.resume();
    this.ctx.set('Connection', 'close');
    this.reject(error);
  }

  /** The parser closed: the upload is complete once its file part has ended too. */
  finish(): void {
    this.finished = true;
    this.resolveWhenComplete();
  }

  onFile(name: string, stream: FileStream, info: busboy.FileInfo): void {
    if (name !== 'file' || this.file !== undefined) {
      stream.resume();
      this.fail(validationError([{ path: name === 'file' ? 'file' : name, message: 'Only one file part named "file" is accepted.' }]));
      return;
    }
    this.file = { fileName: info.filename ?? '', contentType: info.mimeType };
    stream.on('data', (chunk: Buffer) => this.onFileData(chunk));
    stream.on('limit', () => this.fail(tooLarge()));
    stream.on('error', (error: Error) => this.fail(malformed(error)));
    stream.on('end', () => {
      this.fileDone = true;
      this.resolveWhenComplete();
    });
  }

  onField(name: string, value: string, info: busboy.FieldInfo): void {
    if (name !== 'title') {
      this.issues.push({ path: name.slice(0, 100), message: 'Unknown field; only "file" and "title" are accepted.' });
    } else if (info.valueTruncated) {
      this.issues.push({ path: 'title', message: 'The title is too long.' });
    } else if (this.title !== undefined) {
      this.issues.push({ path: 'title', message: 'The title may appear only once.' });
    } else {
      this.title = value;
    }
  }

  private onFileData(chunk: Buffer): void {
    if (this.settled) return;
    if (this.reserveAsRead) {
      try {
        reserveBodyMemory(this.ctx.req, chunk.length);
      } catch (error) {
        this.fail(error as Error);
        return;
      }
    }
    this.received += chunk.length;
    this.chunks.push(chunk);
  }

  private resolveWhenComplete(): void {
    if (this.settled || !this.finished || (this.file !== undefined && !this.fileDone)) return;
    if (this.file === undefined) this.issues.push({ path: 'file', message: 'A file part named "file" is required.' });
    if (this.issues.length > 0 || this.file === undefined) {
      this.fail(validationError(this.issues));
      return;
    }
    this.settled = true;
    const bytes = Buffer.concat(this.chunks, this.received);
    this.chunks.length = 0;
    const { title } = this;
    this.resolve({ fileName: this.file.fileName, contentType: this.file.contentType, bytes, ...(title !== undefined ? { title } : {}) });
  }
}

function collectUpload(ctx: AppContext, parser: busboy.Busboy, reserveAsRead: boolean): Promise<MultipartUpload> {
  const req = ctx.req;
  return new Promise<MultipartUpload>((resolve, reject) => {
    const upload = new UploadCollector(ctx, parser, reserveAsRead, resolve, reject);
    const fail = (error: Error): void => upload.fail(error);
    parser.on('file', (name, stream, info) => upload.onFile(name, stream, info));
    parser.on('field', (name, value, info) => upload.onField(name, value, info));
    parser.on('filesLimit', () => fail(validationError([{ path: 'file', message: 'Only one file part is accepted.' }])));
    parser.on('fieldsLimit', () => fail(validationError([{ path: 'body', message: 'Too many fields.' }])));
    parser.on('partsLimit', () => fail(validationError([{ path: 'body', message: 'Too many parts.' }])));
    parser.on('error', (error: unknown) => fail(malformed(error)));
    parser.on('close', () => upload.finish());
    req.on('aborted', () => fail(new HttpError(400, 'The request body was aborted.', {}, 'upload_aborted')));
    req.on('error', (error: Error) => fail(malformed(error)));
    // Destroyed without an error (the connection cut at the shutdown deadline): never 'end'.
    req.on('close', () => {
      if (!req.complete) fail(abortedBody());
    });
    req.pipe(parser);
  });
}

function malformed(cause: unknown): ApiError {
  return new ApiError('VALIDATION_ERROR', 'The request is not valid.', {
    issues: [{ path: 'body', message: 'The multipart body is malformed.' }],
  }, { cause });
}

/**
 * The operation-input pieces of a parsed upload: a body shaped like the JSON form minus
 * `content_base64` (marked pre-parsed, so it is not checked against the JSON schema), and the
 * bytes in `upload` — the 10 MB are never re-encoded as base64. attachments.upload runs the
 * same size/type/magic-byte/name checks on it as on a JSON upload.
 */
export function toUploadInput(upload: MultipartUpload): Pick<OperationInput, 'body' | 'upload'> {
  const body: Record<string | symbol, unknown> = {
    [PREPARSED_BODY]: true,
    file_name: upload.fileName,
    content_type: upload.contentType,
    ...(upload.title !== undefined ? { title: upload.title } : {}),
  };
  return { body, upload: { bytes: upload.bytes } };
}
