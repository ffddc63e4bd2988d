// The product's mark and name, in the shell's sidebar and on the signed-out pages.
export function Logo({ size = "md" }: { size?: "md" | "lg" }) {
  return (
    <span className={`flex items-center gap-2 font-semibold tracking-tight text-ink-900 ${size === "lg" ? "text-xl" : "text-lg"}`}>
      <svg viewBox="0 0 24 24" className={size === "lg" ? "size-8" : "size-7"} aria-hidden="true">
        <rect width="24" height="24" rx="7" className="fill-brand-600" />
        <path d="M7 16.5 10.5 8h3L17 16.5h-2.6l-.7-1.9h-3.4l-.7 1.9H7Zm4.1-3.9h1.8L12 10.1l-.9 2.5Z" fill="white" />
      </svg>
      Ideally
    </span>
  );
}
