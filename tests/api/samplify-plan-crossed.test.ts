// Crossed quota cells in the Samplify line item (issue 36; decision record 0136): a crossing of two
// demographics Dynata has attributes for goes as one quota group of nested cells (the reference's
// QuotaCell takes a list of quotaNodes: Dynata's Go client's lib/line_item.go, and the python
// client's create_line_item schema), each cell at its cap; a crossing with the market's region, for
// which the reference names no attribute, and a cell with an answer Dynata has no option for, are
// named in warnings. Expected values are written by hand from the reference's attributes: "11"
// Gender (1 Male, 2 Female), "13" Age ("18-24", "25-34").
import { expect, test } from "bun:test";
import type { SurveyDefinition } from "../../api/src/domains/fielding/engine.ts";
import { samplifyPlan } from "../../api/src/domains/fielding/samplify-plan.ts";
import { lineItemProblems } from "../helpers/samplify-fake.ts";

const MALE = 4500001;
const FEMALE = 4500002;
const ANOTHER = 4500003;
const AGE_18 = 5100001;
const AGE_25 = 5100002;
const AUCKLAND = 4200102;
const WELLINGTON = 4200109;
const question = (id: number, title: string, options: [number, string][]) => ({ key: `s${id}`, systemQuestionId: id, title, text: title, options: options.map(([oid, text]) => ({ id: oid, text })) });

const def = {
  targetCompletes: 200,
  targets: [],
  screener: [],
  demographics: [
    question(42, "Region", [
      [AUCKLAND, "Auckland"],
      [WELLINGTON, "Wellington"],
    ]),
    question(45, "Gender", [
      [MALE, "Male"],
      [FEMALE, "Female"],
      [ANOTHER, "Another gender"],
    ]),
    question(51, "Age group", [
      [AGE_18, "18-24"],
      [AGE_25, "25-34"],
    ]),
    question(52, "Household", [
      [5200001, "Single"],
      [5200002, "Couple"],
    ]),
  ],
  crossed: [
    {
      keys: ["s42", "s52"],
      cells: [
        { optionIds: [AUCKLAND, 5200001], cap: 100 },
        { optionIds: [WELLINGTON, 5200002], cap: 100 },
      ],
    },
    {
      keys: ["s45", "s51"],
      cells: [
        { optionIds: [MALE, AGE_18], cap: 50 },
        { optionIds: [MALE, AGE_25], cap: 50 },
        { optionIds: [FEMALE, AGE_18], cap: 60 },
        { optionIds: [ANOTHER, AGE_25], cap: 40 },
      ],
    },
  ],
} as unknown as SurveyDefinition;

test("a gender × age crossing goes as nested quota cells at their caps; the region crossing and an unmappable cell are named", () => {
  const { quotaPlan, warnings } = samplifyPlan(def, 200);
  expect(quotaPlan).toEqual({
    filters: [],
    quotaGroups: [
      {
        name: "Gender × Age group",
        quotaCells: [
          {
            quotaNodes: [
              { attributeId: "11", options: ["1"] },
              { attributeId: "13", options: ["18-24"] },
            ],
            count: 50,
          },
          {
            quotaNodes: [
              { attributeId: "11", options: ["1"] },
              { attributeId: "13", options: ["25-34"] },
            ],
            count: 50,
          },
          {
            quotaNodes: [
              { attributeId: "11", options: ["2"] },
              { attributeId: "13", options: ["18-24"] },
            ],
            count: 60,
          },
        ],
      },
    ],
  });
  expect(warnings).toEqual([
    `The crossed cells "Region × Household" are not sent to Samplify: Dynata's reference names no attribute for "Region", "Household"; the survey screens and caps on them`,
    `"Gender × Age group": the cell "Another gender", "25-34" (40 completes) is not sent: it has no Dynata option`,
  ]);
  // The loopback fake, which checks a plan against the reference's attributes, takes it.
  const item = {
    extLineItemId: "run-1",
    title: "t",
    countryISOCode: "NZ",
    languageISOCode: "en",
    indicativeIncidence: 20,
    daysInField: 5,
    lengthOfInterview: 5,
    targets: [{ type: "COMPLETE", count: 200 }],
    quotaPlan,
  };
  expect(lineItemProblems(item)).toBeNull();
});
