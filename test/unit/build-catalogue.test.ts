import { join } from 'node:path';
import { LEVELS } from '../../src/courses/course.entity';
import {
  CatalogueCourse,
  buildCatalogue,
  courseraMinutes,
  edxCredits,
  edxMinutes,
  levelOf,
  readCatalogueFiles,
} from '../../src/courses/catalogue/build-catalogue';
import { cleanDescription, firstEdxInstructor, parseCount } from '../../src/courses/catalogue/catalogue-text';
import { syllabusTitles } from '../../src/courses/catalogue/catalogue-topics';

const files = readCatalogueFiles(join(__dirname, '..', '..', 'data'));
const catalogue = buildCatalogue(files);
const bySource = (source: string) => catalogue.filter((c) => c.sourceKey.startsWith(`${source}:`));

describe('buildCatalogue on the real data files', () => {
  it('is deterministic: the same files give the same courses', () => {
    expect(buildCatalogue(files)).toEqual(catalogue);
  });

  it('loads both sources, about 1,970 courses after dropping repeated titles', () => {
    expect(bySource('edx').length).toBeGreaterThan(950);
    expect(bySource('coursera').length).toBeGreaterThan(980);
    expect(catalogue.length).toBeGreaterThanOrEqual(1900);
  });

  it('gives every course a unique source key', () => {
    expect(new Set(catalogue.map((c) => c.sourceKey)).size).toBe(catalogue.length);
  });

  it('keeps one course per title within a source', () => {
    for (const source of ['edx', 'coursera']) {
      const titles = bySource(source).map((c) => c.title.toLowerCase());
      expect(new Set(titles).size).toBe(titles.length);
    }
  });

  it('produces only courses the schema accepts', () => {
    const problems = catalogue.flatMap((c) => problemsOf(c).map((p) => `${c.sourceKey}: ${p}`));
    expect(problems).toEqual([]);
  });

  it('makes some courses free and prices the rest between 5 and 100 credits', () => {
    const free = catalogue.filter((c) => c.creditCost === 0);
    expect(free.length).toBeGreaterThan(50);
    expect(free.some((c) => c.sourceKey.startsWith('edx:'))).toBe(true);
    expect(free.some((c) => c.sourceKey.startsWith('coursera:'))).toBe(true);
    expect(catalogue.filter((c) => c.creditCost > 0).every((c) => c.creditCost >= 5 && c.creditCost <= 100)).toBe(true);
  });

  it('strips the edX honour-code and coupon boilerplate from descriptions', () => {
    expect(catalogue.filter((c) => /honou?r code|coupon code/i.test(c.description))).toEqual([]);
    const howToLearn = catalogue.find((c) => c.sourceKey === 'edx:how-to-learn-online')!;
    expect(howToLearn.description).toContain('successful online learner.');
    expect(howToLearn.description).not.toMatch(/Y5ZADM5NU2AN5JU7|Verified Certificate for this course is free/);
  });

  it('maps a real edX row field by field', () => {
    const course = catalogue.find((c) => c.sourceKey === 'edx:how-to-learn-online')!;
    expect(course).toMatchObject({
      title: 'How to Learn Online',
      category: 'Education & Teacher Training',
      level: 'Beginner',
      durationMinutes: 300, // 2–3 hours a week for 2 weeks
      enrolled: 124980,
      creditCost: 15, // $49 certificate / 3, rounded to 5
      organisation: 'edX',
      tutor: { name: 'Nina Huntemann', bio: 'Instructor at edX.', organisation: 'edX' },
    });
    expect(course.topics.map((t) => t.title).slice(0, 2)).toEqual(['Welcome', 'Self-care for Learning']);
  });

  it('maps a real Coursera row field by field', () => {
    const course = catalogue.find((c) => c.sourceKey === 'coursera:professional-certificates/ibm-data-science')!;
    expect(course).toMatchObject({
      title: 'IBM Data Science',
      category: 'Data Analysis & Statistics',
      level: 'Beginner',
      durationMinutes: 10 * 20 * 60, // 10 months at 20 hours a month
      rating: 4.6,
      enrolled: 500000,
      organisation: 'IBM',
      tutor: { name: 'Joseph Santarcangelo', organisation: 'IBM' },
    });
    expect(course.topics[0].title).toBe('Introduction to Data Science');
  });

  it('removes Coursera badges from instructor names', () => {
    expect(catalogue.filter((c) => c.tutor.name.endsWith('Top Instructor'))).toEqual([]);
  });
});

describe('field parsing', () => {
  it('maps levels onto the four catalogue levels', () => {
    expect(levelOf('Introductory')).toBe('Beginner');
    expect(levelOf('Beginner')).toBe('Beginner');
    expect(levelOf('Intermediate')).toBe('Intermediate');
    expect(levelOf('Advanced')).toBe('Advanced');
    expect(levelOf('Mixed')).toBe('All Levels');
    expect(levelOf('')).toBe('All Levels');
    expect(levelOf(undefined)).toBe('All Levels');
  });

  it('reads edX effort and length as the midpoint hours per week times the weeks', () => {
    expect(edxMinutes('2–3 hours per week', '2 Weeks')).toBe(300);
    expect(edxMinutes('8–10 hours per week', '6 Weeks')).toBe(54 * 60);
    expect(edxMinutes('5 hours per week', '4 Weeks')).toBe(20 * 60);
    expect(edxMinutes('', '')).toBe(4 * 6 * 60);
  });

  it('reads Coursera time to complete in hours or months', () => {
    expect(courseraMinutes('16 hours')).toBe(16 * 60);
    expect(courseraMinutes('Approx. 54 hours to complete')).toBe(54 * 60);
    expect(courseraMinutes('4 months')).toBe(80 * 60);
    expect(courseraMinutes('Missing', true)).toBe(15 * 60);
    expect(courseraMinutes('Missing', false)).toBe(80 * 60);
  });

  it('reads enrolment counts with separators and decimals', () => {
    expect(parseCount('124,980')).toBe(124980);
    expect(parseCount('2,442,271')).toBe(2442271);
    expect(parseCount('500000.0')).toBe(500000);
    expect(parseCount('NA')).toBe(0);
    expect(parseCount('')).toBe(0);
  });

  it('prices edX courses from the verified certificate price', () => {
    expect(edxCredits('FREE-Add a Verified Certificate for $25 USD')).toBe(0);
    expect(edxCredits('FREE-Add a Verified Certificate for $99 USD')).toBe(35);
    expect(edxCredits('FREE-Add a Verified Certificate for $450 USD')).toBe(100);
  });

  it('strips honour-code boilerplate and keeps the sentences around it', () => {
    const text =
      'Learn about justice.HarvardX requires individuals who enroll in its courses on edX to abide by the terms of the edX honor code. ' +
      'HarvardX will take appropriate corrective action in response to violations of the edX honor code, which may include dismissal; or other remedies as circumstances warrant. Enjoy!';
    expect(cleanDescription(text)).toBe('Learn about justice. Enjoy!');
    const glued = 'Ballet, and RiotsHarvardX requires individuals who enroll in its courses on edX to abide by the terms of the edX honor code.';
    expect(cleanDescription(glued)).toBe('Ballet, and Riots');
  });

  it('keeps hyphenated surnames when splitting edX instructors', () => {
    expect(firstEdxInstructor('Petra Bonfert-Taylor-Rémi Sharrock')).toBe('Petra Bonfert-Taylor');
    expect(firstEdxInstructor('Ting-Chuen Pong-Tony W K Fung')).toBe('Ting-Chuen Pong');
    expect(firstEdxInstructor('Charles Severance')).toBe('Charles Severance');
    expect(firstEdxInstructor('')).toBeNull();
  });

  it('splits a syllabus on its unit headings', () => {
    expect(syllabusTitles('Week 1:Balance Sheet and Transaction AnalysisWeek 2:Income Statement and Cash FlowsWeek 3:Ratio Analysis')).toEqual([
      'Week 1: Balance Sheet and Transaction Analysis',
      'Week 2: Income Statement and Cash Flows',
      'Week 3: Ratio Analysis',
    ]);
  });
});

function problemsOf(c: CatalogueCourse): string[] {
  const problems: string[] = [];
  const check = (ok: boolean, problem: string) => ok || problems.push(problem);
  check(c.title.trim().length > 0 && c.title.length <= 300, 'title');
  check(c.description.length <= 4000, 'description length');
  check(c.category.trim().length > 0 && c.category.length <= 100, 'category');
  check((LEVELS as readonly string[]).includes(c.level), `level ${c.level}`);
  check(Number.isInteger(c.durationMinutes) && c.durationMinutes > 0, 'duration');
  check(c.rating >= 0 && c.rating <= 5 && Math.round(c.rating * 10) === c.rating * 10, `rating ${c.rating}`);
  check(Number.isInteger(c.enrolled) && c.enrolled >= 0, 'enrolled');
  check(Number.isInteger(c.creditCost) && c.creditCost >= 0, 'credit cost');
  check(c.tutor.name.trim().length > 0 && c.tutor.name.length <= 200, 'tutor name');
  check(c.topics.length >= 3 && c.topics.length <= 12, `${c.topics.length} topics`);
  check(
    c.topics.some((t) => t.isPreview),
    'no preview topic',
  );
  check(
    c.topics.every((t) => t.title.trim().length > 0 && t.title.length <= 120),
    'topic title',
  );
  check(
    c.topics.every((t) => Number.isInteger(t.durationMinutes) && t.durationMinutes >= 5),
    'topic duration',
  );
  check(c.topics[c.topics.length - 1].hasQuiz, 'last topic has no quiz');
  const total = c.topics.reduce((sum, t) => sum + t.durationMinutes, 0);
  check(Math.abs(total - c.durationMinutes) <= 5 * c.topics.length, `topics sum to ${total} of ${c.durationMinutes}`);
  return problems;
}
