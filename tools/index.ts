/**
 * ALL_TOOLS: the explicit registry (style.md, "an explicit registry with group flags"). One import and one
 * entry per tool, both sorted by tool name; nothing else lives here.
 */
import type { ToolSpec } from '../src/define-tool.js';
import createShoppableImage from './ads/create-shoppable-image.js';
import createShoppableVideo from './ads/create-shoppable-video.js';
import decideApproval from './approvals/decide-approval.js';
import createCustomAvatar from './avatar/create-custom-avatar.js';
import listAvatars from './catalog/list-avatars.js';
import listModels from './catalog/list-models.js';
import listShoppablePacks from './catalog/list-shoppable-packs.js';
import listTemplateCategories from './catalog/list-template-categories.js';
import listTemplates from './catalog/list-templates.js';
import listVoices from './catalog/list-voices.js';
import createFamilyVideo from './enterprise/create-family-video.js';
import runModel from './enterprise/run-model.js';
import requestUpload from './files/request-upload.js';
import animateGesture from './gestures/animate-gesture.js';
import getJob from './jobs/get-job.js';
import listJobs from './jobs/list-jobs.js';
import saveOutputs from './jobs/save-outputs.js';
import waitForJobs from './jobs/wait-for-jobs.js';
import createTemplateVideo from './library/create-template-video.js';
import createProductVideo from './product/create-product-video.js';
import quoteUpscale from './upscale/quote-upscale.js';
import upscaleVideo from './upscale/upscale-video.js';
import createCampaign from './video/create-campaign.js';
import createTalkingVideo from './video/create-talking-video.js';

export const ALL_TOOLS: ToolSpec[] = [
  animateGesture,
  createCampaign,
  createCustomAvatar,
  createFamilyVideo,
  createProductVideo,
  createShoppableImage,
  createShoppableVideo,
  createTalkingVideo,
  createTemplateVideo,
  decideApproval,
  getJob,
  listAvatars,
  listJobs,
  listModels,
  listShoppablePacks,
  listTemplateCategories,
  listTemplates,
  listVoices,
  quoteUpscale,
  requestUpload,
  runModel,
  saveOutputs,
  upscaleVideo,
  waitForJobs,
];
