package models

import "github.com/nmc-go/nmc/nmc"

// LogLik returns the pointwise log-likelihood of the training observations, one
// value per observed element in declaration order (Graph's ObservedNames), at a
// state of Model: Graph evaluates it, and Model shares Graph's state layout. With
// nmc.PointwiseDraws it gives the log_lik draws of PSIS-LOO and WAIC.
func (b *Built) LogLik() nmc.HeldOut { return b.Graph.LogLik() }

// Replicator returns the replicated-data generator of the training observations
// (Graph's Replicate), for nmc.PredictiveDraws at states of Model.
func (b *Built) Replicator() nmc.Replicator { return b.Graph }
