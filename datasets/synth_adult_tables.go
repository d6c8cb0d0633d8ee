package datasets

// Categorical attributes of the UCI Adult census data with their value
// counts in the training file adult.data (32,561 rows; rows with a missing
// value "?" are not counted, as the usual preprocessing drops them). The
// generator uses the counts only as sampling weights, so small errors in
// them would not matter; each table sums to 32,561 plus the dropped "?"
// rows (workclass 1,836; occupation 1,843; native-country 583).
type adultCategory struct {
	name    string
	values  []string
	weights []float64
}

var (
	adultWorkclass = adultCategory{"workclass",
		[]string{"Private", "Self-emp-not-inc", "Local-gov", "State-gov", "Self-emp-inc", "Federal-gov", "Without-pay", "Never-worked"},
		[]float64{22696, 2541, 2093, 1298, 1116, 960, 14, 7}}
	adultEducation = adultCategory{"education",
		[]string{"Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th", "HS-grad",
			"Some-college", "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters", "Prof-school", "Doctorate"},
		[]float64{51, 168, 333, 646, 514, 933, 1175, 433, 10501, 7291, 1382, 1067, 5355, 1723, 576, 413}}
	adultMarital = adultCategory{"marital-status",
		[]string{"Married-civ-spouse", "Never-married", "Divorced", "Separated", "Widowed", "Married-spouse-absent", "Married-AF-spouse"},
		[]float64{14976, 10683, 4443, 1025, 993, 418, 23}}
	adultOccupation = adultCategory{"occupation",
		[]string{"Prof-specialty", "Craft-repair", "Exec-managerial", "Adm-clerical", "Sales", "Other-service",
			"Machine-op-inspct", "Transport-moving", "Handlers-cleaners", "Farming-fishing", "Tech-support",
			"Protective-serv", "Priv-house-serv", "Armed-Forces"},
		[]float64{4140, 4099, 4066, 3770, 3650, 3295, 2002, 1597, 1370, 994, 928, 649, 149, 9}}
	adultRelationship = adultCategory{"relationship",
		[]string{"Husband", "Not-in-family", "Own-child", "Unmarried", "Wife", "Other-relative"},
		[]float64{13193, 8305, 5068, 3446, 1568, 981}}
	adultRace = adultCategory{"race",
		[]string{"White", "Black", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other"},
		[]float64{27816, 3124, 1039, 311, 271}}
	adultSex = adultCategory{"sex",
		[]string{"Male", "Female"},
		[]float64{21790, 10771}}
	adultCountry = adultCategory{"native-country",
		[]string{"United-States", "Mexico", "Philippines", "Germany", "Canada", "Puerto-Rico", "El-Salvador",
			"India", "Cuba", "England", "Jamaica", "South", "China", "Italy", "Dominican-Republic", "Vietnam",
			"Guatemala", "Japan", "Poland", "Columbia", "Taiwan", "Haiti", "Iran", "Portugal", "Nicaragua",
			"Peru", "France", "Greece", "Ecuador", "Ireland", "Hong", "Cambodia", "Trinadad&Tobago", "Laos",
			"Thailand", "Yugoslavia", "Outlying-US(Guam-USVI-etc)", "Honduras", "Hungary", "Scotland",
			"Holand-Netherlands"},
		[]float64{29170, 643, 198, 137, 121, 114, 106, 100, 95, 90, 81, 80, 75, 73, 70, 67, 64, 62, 60, 59,
			51, 44, 43, 37, 34, 31, 29, 29, 28, 24, 20, 19, 19, 18, 18, 16, 14, 13, 13, 12, 1}}
)

// adultOneHot lists the one-hot blocks in feature order.
var adultOneHot = []*adultCategory{
	&adultWorkclass, &adultEducation, &adultMarital, &adultOccupation,
	&adultRelationship, &adultRace, &adultSex, &adultCountry,
}

// adultContinuous are the numeric attributes kept (fnlwgt, a census
// sampling weight, is dropped) with the ranges used for min-max scaling:
// the ranges of adult.data.
var adultContinuous = []struct {
	name     string
	min, max float64
}{
	{"age", 17, 90},
	{"education-num", 1, 16},
	{"capital-gain", 0, 99999},
	{"capital-loss", 0, 4356},
	{"hours-per-week", 1, 99},
}

// AdultFeatures is the width of Adult-like records: 5 numeric + 99 one-hot
// = 104, matching the 104-input network of Bernau et al. (2021, §6.1:
// "104-neuron input layer due to the use of dummy variables").
const AdultFeatures = 104

// AdultFeatureNames returns the 104 feature names in order: the five
// numeric attributes, then "attribute=value" for every one-hot column.
func AdultFeatureNames() []string {
	names := make([]string, 0, AdultFeatures)
	for _, c := range adultContinuous {
		names = append(names, c.name)
	}
	for _, cat := range adultOneHot {
		for _, v := range cat.values {
			names = append(names, cat.name+"="+v)
		}
	}
	return names
}

// Log-odds contributions of occupation and workclass to earning >50K.
// Hand-set to follow the direction of the well-known effects in Adult
// (managers and professionals earn more, service and farming jobs less);
// not fitted.
var (
	adultOccupationEffect = map[string]float64{
		"Exec-managerial": 0.9, "Prof-specialty": 0.7, "Tech-support": 0.5, "Protective-serv": 0.4,
		"Sales": 0.3, "Transport-moving": -0.1, "Adm-clerical": -0.1, "Machine-op-inspct": -0.3,
		"Handlers-cleaners": -0.7, "Farming-fishing": -0.8, "Other-service": -1.0, "Priv-house-serv": -1.8,
	}
	adultWorkclassEffect = map[string]float64{
		"Self-emp-inc": 0.6, "Federal-gov": 0.4, "Without-pay": -2, "Never-worked": -2,
	}
)
