import { AppError, invalidArgument } from './app-error.js';

/**
 * The media service's refusals of StoreImage, owned here beside event-rules.ts: media throws them,
 * the gateway relays them (naming its own field in front), and test fakes of media produce these
 * and nothing else. Every one is about the request's `data` field.
 */

/** Shown to callers when the bytes are none of the accepted formats. */
export const UNSUPPORTED_IMAGE_MESSAGE = 'not a supported image: only JPEG, PNG, GIF and WEBP are accepted';

/** Rule names (details.rule, media_image_rejections_total's `rule` label): required, size, format, corrupt, pixels. */
export const imageRuleError = {
  empty: (): AppError => invalidArgument('data', 'required', 'image is empty'),
  /** 413: the one refusal that is about size, like the gateway's own body and image limits. */
  tooLarge: (maxBytes: number): AppError =>
    new AppError('INVALID_ARGUMENT', `image is larger than the limit of ${maxBytes} bytes`, { field: 'data', rule: 'size', httpStatus: 413 }),
  unsupported: (): AppError => invalidArgument('data', 'format', UNSUPPORTED_IMAGE_MESSAGE),
  /** `formatName`: JPEG, PNG, GIF or WEBP. */
  corrupt: (formatName: string): AppError => invalidArgument('data', 'corrupt', `corrupt ${formatName} image: its width and height cannot be read`),
  /** The header reads, but the file's blocks do not run complete to its end (cut short, a broken chunk, bytes after its end). */
  incomplete: (formatName: string): AppError =>
    invalidArgument('data', 'corrupt', `corrupt ${formatName} image: its structure is incomplete (cut short, a broken block, or bytes after its end)`),
  tooManyPixels: (width: number, height: number, maxPixels: number): AppError =>
    invalidArgument('data', 'pixels', `image has too many pixels: ${width}x${height} is above the limit of ${maxPixels}`),
} satisfies Record<string, (...args: never[]) => AppError>;
