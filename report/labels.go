package report

import "strings"

// Human is a column name in words for legends and axis labels, when the
// spec gives none: epsilon_lb → "ε lower bound", epsilon_rdp → "ε RDP",
// rero_guo_fano_mc_advantage → "ReRo Guo Fano MC advantage". The column
// name itself is what a reader types into a notebook; this is what they
// read on a figure.
func Human(col string) string {
	parts := strings.Split(col, "_")
	for i, p := range parts {
		if w, ok := words[p]; ok {
			parts[i] = w
		}
	}
	s := strings.Join(parts, " ")
	s = strings.ReplaceAll(s, "lower bound lo", "lower bound (low end)")
	return s
}

// words are the abbreviations and Greek letters of dpaudit's column names.
var words = map[string]string{
	"epsilon": "ε", "delta": "δ", "sigma": "σ", "mu": "μ", "rho": "ρ",
	"alpha": "α", "beta": "β", "gamma": "γ", "kappa": "κ", "eta": "η",
	"lb": "lower bound", "ub": "upper bound", "lo": "low", "hi": "high",
	"rdp": "RDP", "pld": "PLD", "gdp": "GDP", "mse": "MSE", "auc": "AUC",
	"rero": "ReRo", "fil": "FIL", "dfil": "dFIL", "mc": "MC", "cp": "CP",
	"tpr": "TPR", "fpr": "FPR", "fnr": "FNR", "glm": "GLM", "guo": "Guo",
	"fano": "Fano", "hayes": "Hayes", "bernau": "Bernau", "pnsgd": "PNSGD",
	"ml": "ML", "sgd": "SGD", "dpsgd": "DP-SGD", "os": "order statistics",
	"fdp": "f-DP", "pct": "%", "num": "number of", "lr": "learning rate",
}

// seriesLabel is the legend label of y column k: the spec's label, or
// the column's name in words.
func seriesLabel(labels []string, k int, col string) string {
	if k < len(labels) && labels[k] != "" {
		return labels[k]
	}
	return Human(col)
}
