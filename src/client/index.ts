/**
 * The platform client factory: one PlatformHttp shared by every area, so the queue (concurrency and
 * rate) covers submits and polls alike.
 */
import type { VendorMap } from '../config.js';
import { actorsArea } from './areas/actors.js';
import { adsArea } from './areas/ads.js';
import { avatarsArea } from './areas/avatars.js';
import { enterpriseArea } from './areas/enterprise.js';
import { familyArea } from './areas/family.js';
import { gesturesArea } from './areas/gestures.js';
import { libraryArea } from './areas/library.js';
import { productsArea } from './areas/products.js';
import { upscaleArea } from './areas/upscale.js';
import { voicesArea } from './areas/voices.js';
import { PlatformHttp, type PlatformHttpOptions } from './http.js';
import type { PlatformClient } from './types.js';

export { PlatformHttp } from './http.js';
export type { PlatformClient } from './types.js';

/** Every PlatformHttp option (base URL, key, dispatcher, logger, timeout, concurrency…) plus the vendor map. */
export interface CreatePlatformClientOptions extends PlatformHttpOptions {
  /** Resolves the spec's `<vendorX>` route segments at call time. */
  vendors: VendorMap;
}

export type PlatformClientHandle = PlatformClient & { http: PlatformHttp; close(): Promise<void> };

/** Builds the client. Nothing is sent here; a missing vendor letter fails only the call that needs it. */
export function createPlatformClient(opts: CreatePlatformClientOptions): PlatformClientHandle {
  const { vendors, ...httpOptions } = opts;
  const http = new PlatformHttp(httpOptions);
  return {
    http,
    close: () => http.close(),
    avatars: avatarsArea(http),
    voices: voicesArea(http),
    actors: actorsArea(http),
    products: productsArea(http, vendors),
    ads: adsArea(http),
    library: libraryArea(http),
    gestures: gesturesArea(http),
    enterprise: enterpriseArea(http),
    family: familyArea(http, vendors),
    upscale: upscaleArea(http),
  };
}
