import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors';
import { CatalogueCache } from './catalogue-cache';
import { avatarSvg, thumbnailSvg } from './course-art';
import { CoursesRepository } from './courses.repository';
import { CoursesService } from './courses.service';
import { previewPage } from './preview-page';

/** Generated images and preview pages, rendered once per cache period (cleared on every catalogue change). */
@Injectable()
export class CoursePagesService {
  constructor(
    private readonly repo: CoursesRepository,
    private readonly cache: CatalogueCache,
    private readonly courses: CoursesService,
  ) {}

  /** The thumbnail of a published course; null when there is none. */
  thumbnail(id: number): Promise<string | null> {
    return this.cache.getOrLoad(`svg:thumbnail:${id}`, async () => {
      const row = await this.repo.thumbnailFacts(id);
      return row ? thumbnailSvg(row) : null;
    });
  }

  /** The avatar of a tutor; null when there is none. */
  avatar(id: number): Promise<string | null> {
    return this.cache.getOrLoad(`svg:avatar:${id}`, async () => {
      const row = await this.repo.tutorName(id);
      return row ? avatarSvg(row) : null;
    });
  }

  /** The preview page of a published course; null when there is none. */
  async preview(id: number): Promise<string | null> {
    try {
      const course = await this.courses.get(id);
      return previewPage(course, this.courses.urls.preview({ id, previewVideoUrl: null }));
    } catch (e) {
      if (e instanceof DomainError && e.code === 'course_not_found') return null;
      throw e;
    }
  }
}
