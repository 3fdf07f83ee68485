/** Custom avatars: complete at creation, so there is no status endpoint; the store holds the result. */
import { defineKind, singleId } from './define.js';

export default defineKind({
  kind: 'custom_avatar',
  handleShape: '<avatar_id>',
  ...singleId('custom_avatar'),
  status: null,
  submits: [{ endpoint: 'POST /custom-avatar/generate (multipart)', tool: 'create_custom_avatar' }],
  sim: null,
});
