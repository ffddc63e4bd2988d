// occasions, needs, u-and-a: the group's questions at that position, each linking to its page.
import { Link } from "wouter";
import { EmptyState } from "../../components/ui";
import { useGroup } from "../../features/results/group";

export default function GroupQuestions({ position, title }: { position: number; title: string }) {
  const { questions } = useGroup();
  const qs = questions.filter((q) => q.questionPositionId === position);
  return (
    <div>
      <h2 className="mb-3 text-xl font-semibold text-ink-900">{title}</h2>
      {!qs.length ? (
        <EmptyState title={`No ${title.toLowerCase()} questions in this group`} />
      ) : (
        <ul className="space-y-2">
          {qs.map((q) => (
            <li key={q.id} className="rounded-lg border border-ink-200 bg-white p-3 shadow-sm">
              <Link className="font-medium text-brand-700 hover:underline" href={`/${q.question?.questionTypeId === 3 ? "text" : "qual"}/${q.questionId}${location.search}`}>
                {q.title || q.question?.questionText}
              </Link>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
