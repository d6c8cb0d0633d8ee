package datasets

import (
	"github.com/dpaudit/dpaudit/rng"
)

// PurchaseFeatures is the width of Purchase-100 records: one binary
// "bought this product" flag per product (Shokri et al. 2017; Nasr et al.
// 2021, App. VI-A: "600 different products").
const PurchaseFeatures = 600

// Purchase-like generator constants. They are not fitted to the real data
// (which cannot be obtained here); they give sparse binary records whose
// clusters are learnable but overlap.
const (
	purchaseFavouriteRate = 0.08 // share of products that are a cluster's favourites (≈48)
	purchaseFavouriteLow  = 0.1  // favourite purchase probability ~ U[low, high]
	purchaseFavouriteHigh = 0.3
	purchaseBaseMax       = 0.1 // background probability ~ 0.01 + (max−0.01)·U²
)

// PurchaseLike generates n binary records of PurchaseFeatures products in
// `classes` clusters, standing in for Purchase-100 (Kaggle "Acquire Valued
// Shoppers" records clustered into 100 classes, which cannot be obtained
// here).
//
// Model: every product j has a background purchase probability b_j
// (mostly small); every cluster picks about 8% of the products as
// favourites, each bought with probability U[0.1, 0.3] instead of b_j. A
// record draws its cluster uniformly at random and each product
// independently. On average 5.3% of a record's flags are set, and a nearest-centroid rule
// fitted on 150 records per cluster recovers the cluster of about 86% of
// new records (100 clusters): learnable, not trivial. Clusters, like
// the k-means clusters of the real data, are not balanced exactly.
func PurchaseLike(n, classes int, seed uint64) (*Dataset, error) {
	const d = PurchaseFeatures
	if err := checkSynthetic(SourcePurchaseLike, n, d, classes); err != nil {
		return nil, err
	}
	protoRand := rng.New(seed, "datasets", SourcePurchaseLike, "prototypes")
	base := make([]float64, d)
	for j := range base {
		u := protoRand.Float64()
		base[j] = 0.01 + (purchaseBaseMax-0.01)*u*u
	}
	proto := make([]float64, classes*d)
	for k := range classes {
		p := proto[k*d : (k+1)*d]
		for j := range p {
			p[j] = base[j]
			if protoRand.Float64() < purchaseFavouriteRate {
				p[j] = purchaseFavouriteLow + (purchaseFavouriteHigh-purchaseFavouriteLow)*protoRand.Float64()
			}
		}
	}
	r := rng.New(seed, "datasets", SourcePurchaseLike, "records")
	x := make([]float32, n*d)
	y := make([]int32, n)
	for i := range n {
		k := r.IntN(classes)
		y[i] = int32(k)
		p := proto[k*d : (k+1)*d]
		row := x[i*d : (i+1)*d]
		for j := range row {
			if r.Float64() < p[j] {
				row[j] = 1
			}
		}
	}
	names := numberedNames(classes)
	for k := range names {
		names[k] = "cluster-" + names[k]
	}
	return &Dataset{
		X: x, Y: y, N: n, D: d, Shape: []int{d},
		Classes: classes, ClassNames: names, Name: SourcePurchaseLike,
	}, nil
}
