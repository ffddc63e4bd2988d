// The dashboards' charts on @nivo/bar, in the manage area's lazily loaded chunk (never on the
// login page). Each chart is an image with a label and a visually hidden table of its numbers, so
// screen readers get the same figures.
import { ResponsiveBar } from "@nivo/bar";

const theme = {
  text: { fontSize: 11, fill: "#475467" },
  axis: { ticks: { text: { fontSize: 11, fill: "#475467" } }, domain: { line: { stroke: "#d0d5dd" } } },
  grid: { line: { stroke: "#eaecf0" } },
  tooltip: { container: { fontSize: 12 } },
};

export type BarDatum = { label: string; value: number };

export function BarChart({
  data,
  label,
  unit,
  color = "#4f46e5",
  horizontal = false,
  height = 240,
}: {
  data: BarDatum[];
  label: string;
  unit: string;
  color?: string;
  horizontal?: boolean;
  height?: number;
}) {
  const longest = Math.max(0, ...data.map((d) => d.label.length));
  return (
    <figure className="m-0">
      <div style={{ height }} role="img" aria-label={`${label} (bar chart)`}>
        <ResponsiveBar
          data={data.map((d) => ({ label: d.label, value: d.value }))}
          keys={["value"]}
          indexBy="label"
          layout={horizontal ? "horizontal" : "vertical"}
          margin={horizontal ? { top: 8, right: 24, bottom: 32, left: Math.min(160, 12 + longest * 6.5) } : { top: 8, right: 8, bottom: 32, left: 48 }}
          padding={0.3}
          colors={[color]}
          theme={theme}
          borderRadius={3}
          enableLabel={false}
          enableGridX={horizontal}
          enableGridY={!horizontal}
          axisLeft={horizontal ? { tickSize: 0, tickPadding: 8 } : { tickSize: 0, tickPadding: 6, tickValues: 5 }}
          axisBottom={horizontal ? { tickSize: 0, tickPadding: 6, tickValues: 5 } : { tickSize: 0, tickPadding: 6 }}
          valueFormat={(v) => `${Number(v).toLocaleString("en")} ${unit}`}
          isInteractive
          animate={false}
          role="presentation"
        />
      </div>
      <table className="sr-only">
        <caption>{label}</caption>
        <tbody>
          {data.map((d) => (
            <tr key={d.label}>
              <th scope="row">{d.label}</th>
              <td>
                {d.value.toLocaleString("en")} {unit}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
