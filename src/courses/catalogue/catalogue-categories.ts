/**
 * Coursera has no subject column, so its skills are mapped onto edX's subject names; one category list serves both.
 * Rules are tried in order and the first match names a skill's category, so specific rules come before broad ones
 * (e.g. "Data Structure" is Computer Science before "data" makes it Data Analysis & Statistics).
 */
const RULES: Array<[string, RegExp]> = [
  [
    'Computer Science',
    /machine learning|deep learning|artificial intelligence|neural network|tensorflow|computer vision|reinforcement learning|data structure|database|dbms/i,
  ],
  [
    'Data Analysis & Statistics',
    /data|statistic|regression|analytics|excel|spreadsheet|pivot table|tableau|pandas|numpy|matplotlib|hypothesis|probabilit|bayes|anova|analysis of variance|time series|forecast|\bsql\b|bigquery|apache spark|predictive|confidence interval|normal distribution|dashboard|monte carlo|estimation|r programming|rstudio|visuali[sz]ation|feature engineering|random forest|decision tree|clustering|datos|estad[ií]stic|quantitative|meta-an[aá]lis|systematic review|research methods/i,
  ],
  [
    'Computer Science',
    /program|python|java|html|css|cascading style|web (development|design)|software|algorithm|debugging|cloud|google (cloud|compute|app engine)|linux|github|\bapi\b|sqlite|mongodb|node\.js|cyber|security|cryptograph|blockchain|internet of things|game (development|design)|video game|unity|matlab|agile|scrum|continuous delivery|virtual machine|network architecture|virtual private network|ipv4|load balancing|autoscaling|computer|regular expression|recursion|json|hash table|unit testing|bootstrap|jquery|user (experience|interface)|usability|command-line|powershell|parallel computing|intelligent systems|watson|self-driving|augmented reality|g suite|\baws\b|container|dialogflow|access control/i,
  ],
  [
    'Economics & Finance',
    /financ|accounting|investment|balance sheet|cash flow|stock|bond market|trading|interest rate|econom|cryptocurrenc|asset management|venture capital|capital budgeting|insurance|portfolio|pricing|price discrimination|game theory|budget|banking|\btax|fintech|auditing|finanzas|эконом|финанс/i,
  ],
  ['Law', /\blaw\b|legal|constitution|court|forensic|anticorrup|copyright|contracts?\b|intellectual property|compliance/i],
  [
    'Language',
    /english|grammar|punctuation|tenses|language|linguist|lengua|idioma|español|chinese|spanish|french|german|korean|japanese|russian|italian|arabic|vocabulary|pronunciation/i,
  ],
  [
    'Communication',
    /communicat|writing|periodismo|escritura|hablar bien|public speaking|speech|presentation|social media|email|editing|storytelling|journalism|listening|assertiveness|persuasion|essay/i,
  ],
  ['Music', /music|song|guitar|piano|chord|audio|sound design|pro tools|tablature|singing|vocal|drum|harmony/i],
  ['Design', /design|computer-aided|\bcad\b|autodesk|architecture|adobe/i],
  ['Art & Culture', /\barts?\b(?! of)|drawing|painting|photograph|museum|film|mythology|culture|graphic|color theory|illustrat|creativ/i],
  ['Food & Nutrition', /nutrition|food|diet|cooking|wine/i],
  [
    'Medicine',
    /medic|clinical|pharmacolog|cancer|disease|anatomy|vital signs|nursing|patient|epidemiolog|surgery|diagnos|immunolog|dementia|dentist|odont|dermatolog|antibiotic|pandemic|epidemic|covid|\bemt\b|paciente|diabetes|breastfeeding|newborn|reci[eé]n nacido|heridas|farmacolog/i,
  ],
  ['Health & Safety', /health|salud|first aid|auxilios|weight|fitness|wellness|mindfulness|meditation|sleep|exercise|stress/i],
  [
    'Biology & Life Sciences',
    /biolog|bioinformatics|genetic|genomic|evolution|animal|\bdogs?\b|ecolog|neuro|brain|\bcells?\b|\bdna\b|protein|microbiome|equine/i,
  ],
  ['Chemistry', /chemi|spectroscop/i],
  ['Physics', /physics|quantum|astronom|solar system|relativity/i],
  ['Math', /math|algebra|calculus|geometry|number theory|stochastic|discrete|\blogic\b|graph theory|linear programming|optimi[sz]ation|trigonometry/i],
  [
    'Engineering',
    /engineering|mechanical|electrical|robot|manufactur|materials|circuit|signal processing|control system|electronics|power systems|nanotechnolog|biotechnolog/i,
  ],
  ['Energy & Earth Sciences', /energy|energ[ií]a|electric industry|geolog|earth|climate|ocean|renewable/i],
  ['Environmental Studies', /environment|sustainab|urban planning|\bgis\b|geographic|conservation/i],
  [
    'Education & Teacher Training',
    /teaching|teacher|education|lesson plan|learning to learn|online learning|meta learning|pomodoro|classroom|curriculum|instructional|docencia|\baula\b/i,
  ],
  ['Philosophy & Ethics', /philosoph|ethic|moral|religio/i],
  ['History', /histor|ancient|medieval|egypt|egiptolog/i],
  [
    'Social Sciences',
    /psycholog|psicol|sociolog|politic|pol[ií]tica|policy|social|diplomacy|global order|geopol|migration|parenting|child|diversity|inclusion|sexualidad|societ|democra|meaning in life|resilience|gobernanza|anthropolog|happiness|gratitude|savoring|well-being|character strengths|emotional intelligence|cognitive bias|behavio|human rights|gender|international relations|government/i,
  ],
  [
    'Business & Management',
    /manag|marketing|business|leadership|entrepreneur|strateg|brand|project|planning|\bplan\b|negotiation|human resources|recruit|onboarding|talent|supply chain|six sigma|\blean\b|operations|innovation|sales|advertising|customer|market|consumer|crowdfunding|organi[sz]ational|team|hotel|startup|value proposition|revenue|change|meeting|coaching|goal setting|decision|problem solving/i,
  ],
];

export const FALLBACK_CATEGORY = 'Business & Management';

function categoryOf(text: string): string | null {
  return RULES.find(([, pattern]) => pattern.test(text))?.[0] ?? null;
}

/** The category most of the title and skills map to; ties go to the title, then to the earlier skill. */
export function categoryFromSkills(skills: string[], title: string): string {
  const votes = new Map<string, number>();
  for (const skill of [title, ...skills]) {
    const category = categoryOf(skill);
    if (category) votes.set(category, (votes.get(category) ?? 0) + 1);
  }
  let best: string | null = null;
  for (const [category, count] of votes) if (best === null || count > votes.get(best)!) best = category;
  return best ?? FALLBACK_CATEGORY;
}
