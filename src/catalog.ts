/**
 * Cached catalog lists shared by list tools, resources and validators. Short TTL: lists change rarely,
 * and every validator that needs one (voices, templates, packs, models) must not cost a round trip per call.
 */
import type { Avatar, CatalogEntry, Category, Template, Voice } from './client/schemas.js';

export interface Catalog {
  avatars(q?: { gender?: string }): Promise<Avatar[]>;
  voices(q?: { language?: string; gender?: string }): Promise<Voice[]>;
  templates(category?: string): Promise<Template[]>;
  /** One template by id (from the full list). */
  template(id: string): Promise<Template | undefined>;
  categories(): Promise<Category[]>;
  packs(): Promise<unknown>;
  /** Live enterprise catalog (GET /enterprise/models). */
  models(): Promise<CatalogEntry[]>;
  invalidate(): void;
}
