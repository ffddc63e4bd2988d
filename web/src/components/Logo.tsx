// The product's mark and name, in the shell's sidebar and on the signed-out pages.
export function Logo({ size = "md" }: { size?: "md" | "lg" }) {
  return (
    <span className={`flex items-center gap-2 font-semibold tracking-tight text-ink-900 ${size === "lg" ? "text-xl" : "text-lg"}`}>
      <svg viewBox="0 0 24 24" className={size === "lg" ? "size-8" : "size-7"} aria-hidden="true">
        <rect width="24" height="24" rx="7" className="fill-brand-600" />
        {/* A light bulb: an idea, tested. */}
        <circle cx="12" cy="10" r="4.6" fill="none" stroke="white" strokeWidth="2" />
        <path d="M10.2 16.6h3.6M10.8 19h2.4" stroke="white" strokeWidth="2" strokeLinecap="round" />
      </svg>
      Ideally
    </span>
  );
}
