import type { Texts } from './texts';

/** Shown instead of the waiting room when the page config is unusable. */
export function ConfigProblem({ texts, problems }: { texts: Texts; problems: readonly string[] }) {
  return (
    <section className="wr-block wr-problem" role="alert">
      <h1>{texts.configProblem}</h1>
      <p>{texts.configHint}</p>
      <ul>
        {problems.map((problem) => (
          <li key={problem}>{problem}</li>
        ))}
      </ul>
    </section>
  );
}
