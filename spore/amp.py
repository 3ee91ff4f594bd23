"""(filled in by the nn work: auto_mixed_precision, build_train_network, loss-scale managers)"""
