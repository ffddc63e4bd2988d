// The chunks a URL preloads before the first render (web/src/app/pages.ts): each of SPEC 2's areas
// and results pages by its path, nothing behind sign-in for a signed-out visitor.
import { describe, expect, test } from "bun:test";
import * as top from "../../web/src/app/pages";
import * as signedIn from "../../web/src/app/signedInPages";
import * as client from "../../web/src/app/clientPages";
import * as results from "../../web/src/app/resultsPages";

const pages = { ...top, ...signedIn, ...client, ...results };

const { pagesFor } = top;

describe("pagesFor", () => {
  test("outside sign-in: the area alone, signed in or not", () => {
    expect(pagesFor("/auth/login", false)).toEqual([pages.AuthArea]);
    expect(pagesFor("/invites/abc", true)).toEqual([pages.InvitesArea]);
    expect(pagesFor("/common/no-client-id", true)).toEqual([pages.CommonArea]);
  });

  test("a signed-out visitor preloads nothing behind sign-in (the login page must not wait for it)", () => {
    expect(pagesFor("/", false)).toEqual([]);
    expect(pagesFor("/3/results/1/summary", false)).toEqual([]);
  });

  test("signed in: the signed-in area, then the client's page", () => {
    expect(pagesFor("/", true)).toEqual([pages.SignedInArea]);
    expect(pagesFor("/account", true)).toEqual([pages.SignedInArea, pages.Account]);
    expect(pagesFor("/admin/approvals", true)).toEqual([pages.SignedInArea, pages.AdminArea]);
    expect(pagesFor("/3", true)).toEqual([pages.SignedInArea, pages.Home]);
    expect(pagesFor("/3/home", true)).toEqual([pages.SignedInArea, pages.Home]);
    expect(pagesFor("/3/projects/9/markets", true)).toEqual([pages.SignedInArea, pages.ProjectPage]);
    expect(pagesFor("/3/manage-org/members", true)).toEqual([pages.SignedInArea, pages.ManageArea]);
    expect(pagesFor("/3/unknown", true)).toEqual([pages.SignedInArea]);
  });

  test("a project's results: the results area and the page of the route", () => {
    const r = (p: string) => pagesFor(`/3/results/7/${p}`, true).slice(2);
    expect(pagesFor("/3/results/7", true)).toEqual([pages.SignedInArea, pages.ResultsArea]);
    expect(r("summary")).toEqual([pages.Summary]);
    expect(r("qual/12/table")).toEqual([pages.QuestionPage]);
    expect(r("npd-text/12")).toEqual([pages.TextPage]);
    expect(r("price-sensitivity")).toEqual([pages.PriceSensitivity]);
    expect(r("chat/4")).toEqual([pages.Chat]);
    expect(r("all-results")).toEqual([pages.Overview]); // any other tab is the overview of all results
  });
});
