import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DomainError } from '../common/errors';
import { CatalogueCache } from './catalogue-cache';
import { avatarSvg, thumbnailSvg } from './course-art';
import { CoursesService } from './courses.service';
import { previewPage } from './preview-page';

/** Generated images and preview pages, rendered once per cache period (cleared on every catalogue change). */
@Injectable()
export class CoursePagesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cache: CatalogueCache,
    private readonly courses: CoursesService,
  ) {}

  /** The thumbnail of a published course; null when there is none. */
  thumbnail(id: number): Promise<string | null> {
    return this.cache.getOrLoad(`svg:thumbnail:${id}`, async () => {
      const [row]: Array<{ title: string; category: string }> = await this.dataSource.query(
        'SELECT title, category FROM courses WHERE id = $1 AND published',
        [id],
      );
      return row ? thumbnailSvg(row) : null;
    });
  }

  /** The avatar of a tutor; null when there is none. */
  avatar(id: number): Promise<string | null> {
    return this.cache.getOrLoad(`svg:avatar:${id}`, async () => {
      const [row]: Array<{ name: string }> = await this.dataSource.query('SELECT name FROM tutors WHERE id = $1', [id]);
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
