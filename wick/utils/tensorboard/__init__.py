raise ModuleNotFoundError("No module named 'tensorboard' (wick does not provide torch.utils.tensorboard; log "
                          "metrics another way, e.g. print or a CSV file)", name='tensorboard')
