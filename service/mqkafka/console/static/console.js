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
  const canvas = document.getElementById(id);
  const chart = new Chart(canvas, {
    type: "line",
    data: {
      labels: [],
      datasets: names.map(([name, color]) => ({
        label: name, data: [], borderColor: color, backgroundColor: color,
        borderWidth: 2, pointRadius: 2, tension: 0,
      })),
    },
    options: {
      animation: false, responsive: true,
      scales: {
        x: { title: { display: true, text: "time (local)" }, ticks: { maxTicksLimit: 10, maxRotation: 0 } },
        y: { title: { display: true, text: "per second" }, beginAtZero: true },
      },
      plugins: { legend: { position: "bottom" } },
    },
  });
  window.mqkChart = chart;
  window.mqkRates.listen((event) => {
    const totals = document.querySelector("#totals tbody");
    if (totals && event.totals) {
      totals.innerHTML = Object.entries(event.totals)
        .map(([k, v]) => "<tr><th>" + k.replace("_", " ") + " (total)</th><td>" + v + "</td></tr>")
        .join("");
    }
    if (!event.rates) return;
    chart.data.labels.push(new Date(event.time * 1000).toLocaleTimeString());
    names.forEach(([name], i) => chart.data.datasets[i].data.push(event.rates[name]));
    if (chart.data.labels.length > keep) {
      chart.data.labels.shift();
      chart.data.datasets.forEach((d) => d.data.shift());
    }
    chart.update();
    canvas.dataset.points = String(chart.data.labels.length);
  });
}
