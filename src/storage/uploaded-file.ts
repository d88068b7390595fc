/** A file of a multipart request, already on disk; removed when the response ends. */
export interface UploadedFile {
  readonly field: string;
  readonly filename: string;
  readonly mimetype: string;
  readonly path: string;
  readonly size: number;
}
