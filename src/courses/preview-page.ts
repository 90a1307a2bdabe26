import { escapeMarkup as e } from './course-art';
import { CourseDetailDto } from './dto/course.dto';

const STYLE = `body{margin:0;font:16px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#1f2933;background:#f5f7fa}
main{max-width:46rem;margin:0 auto;padding:1.5rem}
h1{font-size:1.75rem;line-height:1.25;margin:.5rem 0}
.meta{color:#52606d;margin:0 0 1rem}
.video{display:flex;flex-direction:column;align-items:center;justify-content:center;aspect-ratio:16/9;margin:0 0 1.5rem;background:#323f4b;color:#fff;border-radius:.5rem;text-align:center;padding:1rem}
.video a{color:#fff}
ol{padding-left:1.5rem}
.duration{color:#52606d}`;

/**
 * A small, accessible preview page of a published course: its title, description, the topics free to
 * preview, and a labelled placeholder where the preview video goes (a link when a real video URL is set).
 */
export function previewPage(course: CourseDetailDto, ownUrl: string): string {
  const previewIds = new Set(course.preview.topic_ids);
  const topics = course.topics.filter((t) => previewIds.has(t.id));
  const video =
    course.preview.video_url !== ownUrl
      ? `<p><a href="${e(course.preview.video_url)}">Watch the preview video of ${e(course.title)}</a></p>`
      : `<p>The preview video of this course is not available yet.</p>`;
  const topicList = topics.length
    ? `<ol>${topics.map((t) => `<li>${e(t.title)} <span class="duration">(${e(t.duration)})</span></li>`).join('')}</ol>`
    : `<p>No topics of this course are free to preview.</p>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(course.title)} – course preview</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${e(course.title)}</h1>
<p class="meta">${e(course.category)} · ${e(course.level)} · ${course.topics.length} ${course.topics.length === 1 ? 'topic' : 'topics'} · taught by ${e(course.tutor.name)}</p>
<section class="video" aria-labelledby="video-heading">
<h2 id="video-heading">Video placeholder</h2>
${video}
</section>
<section aria-labelledby="about-heading">
<h2 id="about-heading">About this course</h2>
<p>${e(course.description) || 'No description yet.'}</p>
</section>
<section aria-labelledby="topics-heading">
<h2 id="topics-heading">Free preview topics</h2>
${topicList}
</section>
</main>
</body>
</html>
`;
}
