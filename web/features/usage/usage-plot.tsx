import 'uplot/dist/uPlot.min.css'
import { useEffect, useRef } from 'react'
import UPlot from 'uplot'
import type { EnvironmentUsage } from './series'

const HEIGHT = 180

/**
 * Yes and no per hour, drawn by uPlot on a canvas (about 20 kB gzipped, no dependencies, fast
 * with 720 points per series: docs/ui.md). The words for it are the figure's caption; the canvas
 * itself is an image named by them.
 */
export function UsagePlot ({ usage, label }: { usage: EnvironmentUsage; label: string }) {
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const el = box.current
    if (!el) return
    const plot = new UPlot({
      width: Math.max(el.clientWidth, 200),
      height: HEIGHT,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      axes: [{}, { size: 60 }],
      series: [
        {},
        { label: 'Yes', stroke: '#1a7f37', fill: 'rgba(26, 127, 55, 0.15)', width: 2, paths: UPlot.paths.stepped!({ align: 1 }) },
        { label: 'No', stroke: '#9aa1ad', fill: 'rgba(154, 161, 173, 0.15)', width: 2, paths: UPlot.paths.stepped!({ align: 1 }) },
      ],
    }, [usage.hours, usage.yes, usage.no], el)
    const resized = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 200), height: HEIGHT }))
    resized.observe(el)
    return () => {
      resized.disconnect()
      plot.destroy()
    }
  }, [usage])
  return <div ref={box} className='usage-plot' role='img' aria-label={label} />
}
