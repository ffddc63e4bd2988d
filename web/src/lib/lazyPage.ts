// Code-split pages that React draws in one pass once their chunk is here. React.lazy suspends on
// every first render, even of a chunk already loaded, and React holds the reveal of a Suspense
// boundary that suspends again for 300 ms (its fallback throttle): a page opened directly through
// three levels of lazy areas waited 0.6 s for nothing. A lazyPage renders its module directly once
// loaded, and preload() starts the load early (app/pages.ts preloads the chunks a URL needs before
// the first render).
import { createElement, lazy, useState, type ComponentType, type ReactElement } from "react";

export interface LazyPage<P extends object> {
  (props: P): ReactElement;
  preload: () => Promise<void>;
}

export function lazyPage<P extends object>(load: () => Promise<{ default: ComponentType<P> }>): LazyPage<P> {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<void> | undefined;
  const preload = () =>
    (loading ??= load().then(
      (m) => {
        loaded = m.default;
      },
      (e: unknown) => {
        loading = undefined; // a failed chunk is asked for again next time
        throw e;
      },
    ));
  const Suspending = lazy(async () => {
    await preload();
    return { default: loaded! };
  });
  const entry: Entry<P> = { loaded: () => loaded, Suspending };
  const page = (props: P) => createElement(LoadedOrLazy<P>, { entry, props });
  return Object.assign(page, { preload });
}

interface Entry<P extends object> {
  loaded: () => ComponentType<P> | undefined;
  Suspending: ComponentType<P>;
}

/** Draws a lazyPage's module directly once loaded, else its React.lazy twin. */
function LoadedOrLazy<P extends object>({ entry, props }: { entry: Entry<P>; props: P }) {
  // An instance keeps the component it started with: switching would remount the page.
  const [ready] = useState(() => entry.loaded() !== undefined);
  return createElement((ready ? entry.loaded()! : entry.Suspending) as ComponentType<P>, props);
}
