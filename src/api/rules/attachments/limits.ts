/** The size cap of one attachment (issue 7: 10 MB), shared by the multipart parser and the upload operation. */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

/** Longest accepted title, in characters (openapi/v1.yaml AttachmentUploadJson.title). */
export const MAX_TITLE_LENGTH = 200;
