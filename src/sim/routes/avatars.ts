/** GET /video/avatars and GET /video/voices: stock entries plus the account's custom ones. */
import type { SimRoute } from '../types.js';
import { avatarsOf, ok, voicesOf } from './common.js';

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export const avatarRoutes: SimRoute[] = [
  {
    method: 'GET',
    path: '/video/avatars',
    style: 'envelope',
    handle(req, ctx) {
      const gender = req.query.get('gender');
      const list = avatarsOf(ctx, req.account).filter((a) => !gender || same(a.gender, gender));
      return ok(list.map(({ default_voice_id: _internal, ...a }) => a));
    },
  },
  {
    method: 'GET',
    path: '/video/voices',
    style: 'envelope',
    handle(req, ctx) {
      const language = req.query.get('language');
      const gender = req.query.get('gender');
      return ok(
        voicesOf(ctx, req.account).filter(
          (v) => (!language || same(v.language, language)) && (!gender || same(v.gender, gender)),
        ),
      );
    },
  },
];
