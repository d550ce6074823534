import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatDayMonth, formatHours, formatNumber } from '../format.ts';

/**
 * Hours per week as bars, drawn by uPlot (a 23 KB canvas chart library; docs/reports.md says why).
 * This module is loaded only with the time report, so no other page downloads it. The canvas is
 * one labelled image for screen readers; the figures themselves are in the table beside it.
 */

export interface WeekHours {
  /** The week's Monday, YYYY-MM-DD. */
  starts_on: string;
  hours: number;
  billable_hours: number;
}

/** Billable work in the app's dark blue, the rest of the week lighter: both over 3:1 against white and against each other. */
const BILLABLE = '#0f2b5b';
const OTHER = '#5b8def';
const INK = '#57606a';
const FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

function options(weeks: WeekHours[], width: number, onHover: (index: number | null) => void): uPlot.Options {
  const bars = uPlot.paths.bars!({ size: [0.7, 56], align: 0 });
  const axis = { stroke: INK, font: FONT, ticks: { show: false }, grid: { stroke: '#eaeef2', width: 1 } };
  return {
    width,
    height: width < 500 ? 220 : 260,
    legend: { show: false },
    cursor: { drag: { x: false, y: false, setScale: false }, points: { show: false }, y: false },
    scales: {
      x: { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] },
      y: { range: (_u, _min, max) => [0, Math.max(1, Math.ceil(max * 1.1))] },
    },
    axes: [
      {
        ...axis,
        grid: { show: false },
        // Whole weeks only, as many labels as fit (space is the least room per label, in CSS pixels).
        incrs: [1, 2, 4, 8, 13, 26, 52],
        space: 56,
        values: (_u, splits) => splits.map((i) => (weeks[i] ? formatDayMonth(weeks[i].starts_on) : '')),
      },
      { ...axis, size: 56, values: (_u, splits) => splits.map((v) => `${formatNumber(v, 1)} h`) },
    ],
    series: [
      {},
      // Drawn first, the whole week; billable hours are drawn over its lower part.
      { label: 'Not billable', fill: OTHER, stroke: OTHER, width: 0, paths: bars, points: { show: false } },
      { label: 'Billable', fill: BILLABLE, stroke: BILLABLE, width: 0, paths: bars, points: { show: false } },
    ],
    hooks: { setCursor: [(u) => onHover(u.cursor.idx ?? null)] },
  };
}

export default function HoursChart({ weeks, label }: { weeks: WeekHours[]; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  const [hovered, setHovered] = useState<number | null>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const data: uPlot.AlignedData = [weeks.map((_, i) => i), weeks.map((w) => w.hours), weeks.map((w) => w.billable_hours)];
    const chart = new uPlot(options(weeks, el.clientWidth, setHovered), data, el);
    // Follows the width of its column (a phone turned, a window resized).
    const resize = new ResizeObserver(() => {
      if (el.clientWidth > 0 && el.clientWidth !== chart.width) chart.setSize({ width: el.clientWidth, height: el.clientWidth < 500 ? 220 : 260 });
    });
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [weeks]);
  const week = hovered === null ? undefined : weeks[hovered];
  return (
    <>
      <ul className="chart-legend" aria-hidden="true">
        <li>
          <span className="swatch" style={{ background: BILLABLE }} /> Billable
        </li>
        <li>
          <span className="swatch" style={{ background: OTHER }} /> Not billable
        </li>
        <li className="chart-readout">{week ? `Week of ${formatDayMonth(week.starts_on)}: ${formatHours(week.hours)} h, ${formatHours(week.billable_hours)} h billable` : ' '}</li>
      </ul>
      <div ref={box} className="chart" role="img" aria-label={label} />
    </>
  );
}
