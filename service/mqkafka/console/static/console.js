// Live rates: one EventSource per page; the header's figures and, on the Rates page, a chart.
(function () {
  "use strict";
  const listeners = [];
  window.mqkRates = { listen: (fn) => listeners.push(fn) };
  const shown = (value) => (value >= 100 ? value.toFixed(0) : value.toFixed(1));
  const source = new EventSource("/events/rates");
  source.addEventListener("rates", (message) => {
    const event = JSON.parse(message.data);
    for (const name of ["publications", "deliveries", "errors"]) {
      const cell = document.getElementById("rate-" + name);
      if (cell) cell.textContent = event.rates ? shown(event.rates[name]) : "–";
    }
    const problem = document.getElementById("rate-problem");
    if (problem) problem.textContent = event.problem ? "metrics: " + event.problem : "";
    listeners.forEach((fn) => fn(event));
  });
  window.addEventListener("beforeunload", () => source.close());
})();

function mqkRateChart(id) {
  "use strict";
  const names = [["publications", "#1f77b4"], ["deliveries", "#2ca02c"], ["errors", "#d62728"]];
  const keep = 300;  // points per line: ten minutes at the default interval
  const traces = names.map(([name, color]) => ({
    x: [], y: [], name: name, mode: "lines+markers", line: { color: color, width: 2 },
    marker: { size: 4 },
  }));
  Plotly.newPlot(id, traces, {
    margin: { t: 20, r: 20, b: 50, l: 60 }, height: 380,
    xaxis: { type: "date", title: { text: "time (local)" } },
    yaxis: { title: { text: "per second" }, rangemode: "tozero" },
    legend: { orientation: "h", y: -0.2 },
  }, { displaylogo: false, responsive: true });
  window.mqkRates.listen((event) => {
    const totals = document.querySelector("#totals tbody");
    if (totals && event.totals) {
      totals.innerHTML = Object.entries(event.totals)
        .map(([k, v]) => "<tr><th>" + k.replace("_", " ") + " (total)</th><td>" + v + "</td></tr>")
        .join("");
    }
    if (!event.rates) return;
    const at = new Date(event.time * 1000);
    Plotly.extendTraces(id, {
      x: names.map(() => [at]),
      y: names.map(([name]) => [event.rates[name]]),
    }, names.map((_, i) => i), keep);
    document.getElementById(id).dataset.points = String(
      document.getElementById(id).data[0].x.length);
  });
}
