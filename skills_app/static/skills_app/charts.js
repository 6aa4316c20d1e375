/* Skill Console — the charts of the insights page and of a skill's page (issue 26).
 *
 * Each <canvas data-chart="ID"> is drawn from the JSON of <script type="application/json" id="ID">
 * (Django's json_script: {labels, series: [{label, color, data}], horizontal}) with Chart.js
 * (vendor/chartjs/chart.umd.min.js, MIT, loaded before this file). A series' colour names a custom
 * property of console.css (--primary, --masked…). Nothing is inline: this file is a static file,
 * so the Content-Security-Policy's script-src 'self' holds. Every chart's numbers are also in a
 * table on the page; the canvas is role="img" with a name that says so. No animation: the chart is
 * there at once, and a person who asked for reduced motion gets none either. */
(function () {
  "use strict";

  function cssValue(name, fallback) {
    var value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
    return value || fallback;
  }

  function draw(canvas) {
    var source = document.getElementById(canvas.getAttribute("data-chart"));
    if (!source || typeof window.Chart !== "function") return;
    var spec = JSON.parse(source.textContent);
    var Chart = window.Chart;
    Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
    Chart.defaults.color = cssValue("--muted", "#5f6b7c");
    if (spec.horizontal) {
      // a row of bars per category: tall enough for every label, never a squashed chart
      var rows = spec.labels.length * Math.max(1, spec.series.length);
      canvas.parentElement.style.height = Math.max(120, rows * 18 + spec.labels.length * 8 + 60) + "px";
    }
    var grid = cssValue("--border", "#e2e5ea");
    var value = { beginAtZero: true, ticks: { precision: 0 }, grid: { color: grid } };
    var category = { grid: { display: false }, ticks: { autoSkip: !spec.horizontal } };
    if (spec.horizontal) {
      // a long name would push the bars off a narrow chart: cut it (the table beside it and the
      // tooltip give it whole)
      category.ticks.callback = function (value) {
        var label = String(this.getLabelForValue(value));
        var most = canvas.parentElement.clientWidth < 520 ? 16 : 34;
        return label.length > most ? label.slice(0, most - 1) + "…" : label;
      };
    }
    new Chart(canvas, {
      type: "bar",
      data: {
        labels: spec.labels,
        datasets: spec.series.map(function (s) {
          return {
            label: s.label,
            data: s.data,
            backgroundColor: cssValue(s.color, "#2c5ee8"),
            borderRadius: 3,
            maxBarThickness: spec.horizontal ? 16 : 28,
          };
        }),
      },
      options: {
        indexAxis: spec.horizontal ? "y" : "x",
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        plugins: {
          legend: { display: spec.series.length > 1, position: "bottom", labels: { boxWidth: 12 } },
        },
        scales: spec.horizontal ? { x: value, y: category } : { x: category, y: value },
      },
    });
    canvas.setAttribute("data-drawn", "");
  }

  function drawAll() {
    var canvases = document.querySelectorAll("canvas[data-chart]");
    for (var i = 0; i < canvases.length; i++) draw(canvases[i]);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", drawAll);
  else drawAll();
})();
