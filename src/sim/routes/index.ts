/** Every simulator route, by API area. The enterprise, dedicated-family and upscale areas live in their own files. */
import type { SimRoute } from '../types.js';
import { actorRoutes } from './actors.js';
import { avatarRoutes } from './avatars.js';
import { customAvatarRoutes } from './custom-avatar.js';
import { enterpriseRoutes } from './enterprise.js';
import { familyRoutes } from './family.js';
import { gestureRoutes } from './gestures.js';
import { libraryRoutes } from './library.js';
import { productRoutes } from './products.js';
import { shoppableRoutes } from './shoppable.js';
import { upscaleRoutes } from './upscale.js';

export const allRoutes: SimRoute[] = [
  ...avatarRoutes,
  ...actorRoutes,
  ...customAvatarRoutes,
  ...productRoutes,
  ...shoppableRoutes,
  ...libraryRoutes,
  ...gestureRoutes,
  ...enterpriseRoutes,
  ...familyRoutes,
  ...upscaleRoutes,
];
